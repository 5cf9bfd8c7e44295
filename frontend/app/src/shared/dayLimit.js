// A day's registration is written in one DynamoDB transaction, at most 100 actions (EntryRepo.create_many, which
// refuses more with 400 registration_too_large): the form counts them as the API does and stops the player
// before sending one that cannot fit, naming how many of the chosen events one registration can take.
export const DAY_ACTIONS = 100;
export const DAY_ITEMS = 16;   // the API's bound on a registration's items (models/registrations.py)

// A phone as the API keys it, near enough to tell two numbers apart: its digits, a mainland mobile without +86.
function phoneKey(phone) {
  const digits = String(phone || "").replace(/\D/g, "");
  const mainland = digits.match(/^(?:0{0,2}86)?(1[3-9]\d{9})$/);
  return mainland ? mainland[1] : digits;
}

// The registration's own actions: its idempotency record, the record, the contact's index item and message,
// and the one payment opened with it (counted wherever the tournament takes money online).
function baseActions(contactPhone, payment) {
  return 2 + (phoneKey(contactPhone) ? 2 : 0) + (payment ? 1 : 0);
}

// An entry's: its item, pointer, counter and roster copy; a person item for each phone, and an index item for
// each phone but the contact's (the registration's index item finds the entry for it).
function itemActions(contact, item) {
  const phones = new Set(item.members.map((m) => phoneKey(m.phone)).filter(Boolean));
  return 4 + phones.size + [...phones].filter((p) => p !== contact).length;
}

export function dayActions(contactPhone, items, { payment = true } = {}) {
  const contact = phoneKey(contactPhone);
  return items.reduce((n, item) => n + itemActions(contact, item), baseActions(contactPhone, payment));
}

// Whether one registration can take these items at all.
export function dayFits(contactPhone, items, options = {}) {
  return items.length <= DAY_ITEMS && dayActions(contactPhone, items, options) <= DAY_ACTIONS;
}

// How many of the items, in order, one registration can take.
export function itemsThatFit(contactPhone, items, { payment = true } = {}) {
  const contact = phoneKey(contactPhone);
  let n = baseActions(contactPhone, payment), fit = 0;
  for (const item of items) {
    n += itemActions(contact, item);
    if (n > DAY_ACTIONS || fit === DAY_ITEMS) break;
    fit += 1;
  }
  return fit;
}
