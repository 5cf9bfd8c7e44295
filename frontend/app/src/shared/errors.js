// An error on screen is worded by the catalog from the API's stable code and details (field path + problem type),
// never from the server's `message` or its bilingual labels.
function fieldLabel(t, te, path) {
  const parts = String(path || "").split(".").filter(Boolean);
  const out = [];
  parts.forEach((p, i) => {
    if (/^\d+$/.test(p)) {
      const n = Number(p) + 1;
      if (parts[i - 1] === "members") out[out.length - 1] = t("fields.member_n", { n });
      else if (parts[i - 1] === "items") out[out.length - 1] = t("fields.item_n", { n });
      return;
    }
    const label = te(`fields.${p}`) ? t(`fields.${p}`) : "";
    if (label && out[out.length - 1] !== label) out.push(label);
  });
  return out.join(" · ");
}

export function problem(t, te, d) {
  if (String(d.field || "").endsWith("phone") && d.type === "value_error") return t("problems.phone_format");
  return te(`problems.${d.type}`) ? t(`problems.${d.type}`) : t("problems.check");
}

export function errorText(t, te, err) {
  const code = (err && err.code) || "unknown";
  if (code === "invalid_request" && Array.isArray(err.details) && err.details.length) {
    const parts = err.details.slice(0, 5).map((d) => {
      const label = fieldLabel(t, te, d.field);
      return label ? t("errors.field", { field: label, problem: problem(t, te, d) }) : problem(t, te, d);
    });
    return `${t("errors.fix")} ${[...new Set(parts)].join(t("errors.sep"))}`;   // each problem once
  }
  // A result the engine refuses names its deal, and for a Dou Dizhu deal the rule it broke.
  if (code === "invalid_result" && err.details && Number.isInteger(err.details.deal)) {
    const why = dealRule(t, te, err);
    return why ? t("errors.invalid_deal_rule", { n: err.details.deal, why }) : t("errors.invalid_deal", { n: err.details.deal });
  }
  const key = `errors.${code}`;
  return te(key) ? t(key) : t("errors.unknown");
}

// The rule a refused deal broke, in the page's words (the API's stable `details.rule`), or "" when the catalog
// has none for it; `details.field` says which of the deal's fields it is shown beside.
export function dealRule(t, te, err) {
  const d = (err && err.details) || {};
  return d.rule && te(`deal_rules.${d.rule}`) ? t(`deal_rules.${d.rule}`, { max: d.max, got: d.got }) : "";
}
