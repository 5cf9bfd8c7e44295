// An error on screen is worded by the catalog from the API's stable code (and details), never from `message`.
export function errorText(t, te, err) {
  const code = (err && err.code) || "unknown";
  const key = `errors.${code}`;
  return te(key) ? t(key) : t("errors.unknown");
}
