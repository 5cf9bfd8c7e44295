// What differs per game on the table page: the seats a deal names and the key its list goes under.
export const SEATS = { guandan: ["N", "E", "S", "W"], gouji: ["1", "2", "3", "4", "5", "6"], doudizhu: ["W", "S", "E"] };
export const listKey = (game) => (game === "gouji" ? "games" : "deals");
export const LEVELS = { 11: "J", 12: "Q", 13: "K", 14: "A" };
export const levelName = (l) => LEVELS[l] || String(l);

// The player at a seat where the table view names them (a pair's members, issue 39), else the entry's name.
export function nameAtSeat(table, seat) {
  if (table.seat_names && table.seat_names[String(seat)]) return table.seat_names[String(seat)];
  const side = table.sides.find((s) => s.seats.map(String).includes(String(seat)));
  return side ? side.name : "";
}
export function namesById(table) {
  return Object.fromEntries(table.sides.map((s) => [s.entry_id, s.name]));
}

// Guandan (rules.md §9, seed 004): the tribute the next deal calls for — after a 双下 (the previous deal's first two
// finishers partners) a double one, else a single one; none before the first deal. The engine checks the choice.
export function expectedTribute(table, deals) {
  const prev = deals.length ? deals[deals.length - 1] : null;
  if (!prev || !Array.isArray(prev.order) || prev.order.length < 2) return null;
  const sideOf = (seat) => table.sides.findIndex((s) => s.seats.map(String).includes(String(seat)));
  return sideOf(prev.order[0]) === sideOf(prev.order[1]) ? "double" : "single";
}
