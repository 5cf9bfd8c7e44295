"""A round's answer (services/rounds.round_out) built as plain data and validated in one call: the same JSON as the
answer built model by model (the way it was built before, kept here as the reference), for the shapes a round's
tables take: pending with codes, confirmed with whole-number points, disputed, a forfeit, a team match's rooms, a
final beside its 3rd-place match, names in the reasons, byes with and without a structured reason."""
from __future__ import annotations

import os

os.environ.setdefault("TABLE_CODE_SECRET", "ab" * 32)

from chalicelib.glossary import bye_text, reason_text, term  # noqa: E402
from chalicelib.models import RoundOut, RoundTable, TableSide  # noqa: E402
from chalicelib.services.names import readable  # noqa: E402
from chalicelib.services.rounds import _bye_rule, round_out, table_code  # noqa: E402

A, B, C, D = "01JAAAAAAAAAAAAAAAAAAAAAAA", "01JBBBBBBBBBBBBBBBBBBBBBBB", "01JCCCCCCCCCCCCCCCCCCCCCCC", "01JDDDDDDDDDDDDDDDDDDDDDDD"
NAMES = {A: {"name": "甲队", "club": "一"}, B: {"name": "乙队", "club": "二"}, C: {"name": "丙队", "club": "一"},
         D: {"name": "丁队", "club": "三"}}


def _reference(doc, tables, names, with_codes=False):
    """round_out as it was before session 4: one RoundTable and its TableSides constructed at a time."""
    plain = {k: v["name"] for k, v in names.items()}
    out_tables = []
    third = doc.get("round_name") == "final" and any((t.get("why") or {}).get("third_place") for t in tables)
    for t in tables:
        why = t.get("why") or {}
        t = {**t, "reason": readable(t.get("reason", ""), names),
             "reason_zh": reason_text(why, "zh", plain) or readable(t.get("reason", ""), names),
             "reason_en": reason_text(why, "en", plain) or readable(t.get("reason", ""), names)}
        sides = [TableSide(entry_id=s["entry_id"], seats=s["seats"], name=names.get(s["entry_id"], {}).get("name", ""))
                 for s in t["sides"]]
        codes = [table_code(doc["event_id"], doc["number"], t["number"], i) for i in range(len(sides))] \
            if with_codes else None
        match = "third_place" if why.get("third_place") else "final" if third else None
        out_tables.append(RoundTable(**{k: v for k, v in t.items() if k in RoundTable.model_fields and k != "sides"},
                                     sides=sides, codes=codes, match_name=match))
    byes = doc.get("byes", [])
    return RoundOut(stage=doc["stage"] + 1, number=doc["number"], stage_round=doc["stage_round"], seed=doc["seed"],
                    status=doc["status"], format=doc["format"], tables=out_tables, byes=[b for b, _ in byes],
                    bye_reasons={b: readable(r, names) for b, r in byes}, bye_names={b: plain.get(b, "") for b, _ in byes},
                    bye_reasons_zh={b: bye_text(doc.get("bye_why", {}).get(b) or _bye_rule(doc), "zh") for b, _ in byes},
                    bye_reasons_en={b: bye_text(doc.get("bye_why", {}).get(b) or _bye_rule(doc), "en") for b, _ in byes},
                    format_zh=term("format", doc["format"], "zh"), format_en=term("format", doc["format"], "en"),
                    round_name=doc.get("round_name"),
                    round_name_zh=term("knockout_round", doc["round_name"], "zh") if doc.get("round_name") else "",
                    round_name_en=term("knockout_round", doc["round_name"], "en") if doc.get("round_name") else "",
                    notes=[readable(x, names) for x in doc.get("notes", [])], drawn_at=doc.get("drawn_at"),
                    starts_at=doc.get("starts_at"), ends_at=doc.get("ends_at"), closed_at=doc.get("closed_at"),
                    disputes=[t["number"] for t in tables if t.get("status") == "disputed"],
                    early_finish=[{"entry_id": e, "name": plain.get(e, ""), **i} for e, i in (doc.get("early_finish") or {}).items()],
                    late_entries=[{**x, "name": plain.get(x["entry_id"], "")} for x in doc.get("late_entries", [])])


def _side(e, seats):
    return {"entry_id": e, "seats": seats}


def _doc(**kw):
    return {"event_id": "01JEVENT", "stage": 0, "number": 3, "stage_round": 3, "seed": 7, "status": "open",
            "format": "swiss", "byes": [[D, f"bye: {D} lowest without a bye"]], "bye_why": {}, "notes": [f"note on {A}"],
            "drawn_at": "2026-12-12T01:00:00+00:00", "starts_at": None, "ends_at": "2026-12-12T03:00:00+08:00",
            "late_entries": [{"entry_id": C, "from_round": 3, "score": 1.0}],
            "early_finish": {B: {"from_round": 3, "average": {"match_points": 1.5}, "place": 1}}, **kw}


def test_a_swiss_round_answers_as_built_model_by_model():
    tables = [
        {"number": 1, "home": A, "reason": "same score 2", "why": {"kind": "same_score", "score": 2.0}, "status": "pending",
         "version": 0, "sides": [_side(A, ["N", "S"]), _side(B, ["E", "W"])], "code_hashes": ["x", "y"], "points": {},
         "details": {}, "fixed": None},
        {"number": 2, "home": C, "reason": f"{C} floats down to {D}", "why": {}, "status": "confirmed", "version": 2,
         "sides": [_side(C, ["N", "S"]), _side(D, ["E", "W"])], "points": {C: {"match_points": 2, "level_diff_points": 11},
                                                                             D: {"match_points": 0, "level_diff_points": 3}},
         "outcome": {C: 1.0, D: 0.0}, "winner": C, "details": {}, "entered_by": "side 0", "confirmed_by": "side 1",
         "entered_side": 0, "confirmed_sides": [1], "fixed": [C], "start_levels": {C: 2}},
        {"number": 3, "home": A, "reason": "rematch", "why": {"kind": "rematch"}, "status": "disputed", "version": 3,
         "sides": [_side(A, ["N", "S"]), _side("01JUNKNOWNUNKNOWNUNKNOWNUN", ["E", "W"])], "points": {},
         "dispute": {"reason": "score", "by": "side 1", "at": "2026-12-12T02:00:00Z"}, "details": {}},
        {"number": 4, "home": B, "reason": "forfeit", "status": "forfeit", "version": 1,
         "sides": [_side(B, ["N", "S"]), _side(C, ["E", "W"])], "points": {B: {"match_points": 2.0}},
         "forfeit": {"entry": C, "excused": False}, "details": {}, "edited": {"reason": "moved", "by": "chief"}},
    ]
    for with_codes in (False, True):
        got = round_out(_doc(), tables, NAMES, with_codes=with_codes).model_dump(mode="json")
        assert got == _reference(_doc(), tables, NAMES, with_codes).model_dump(mode="json")
    codes = [[table_code("01JEVENT", 3, t["number"], i) for i in range(2)] for t in tables]
    given = round_out(_doc(), tables, NAMES, with_codes=True, codes=codes).model_dump(mode="json")
    assert given == _reference(_doc(), tables, NAMES, True).model_dump(mode="json")
    assert given["tables"][1]["points"][C]["match_points"] == 2.0 and given["tables"][0]["sides"][1]["name"] == "乙队"


def test_a_knockout_final_beside_its_third_place_match_and_a_team_match():
    doc = _doc(format="knockout", round_name="final", byes=[], status="closed", closed_at="2026-12-12T05:00:00Z")
    tables = [
        {"number": 1, "home": A, "reason": "knockout: seed 1 v seed 2", "why": {"kind": "knockout", "seeds": [1, 2]},
         "status": "confirmed", "version": 2, "sides": [_side(A, ["N", "S"]), _side(B, ["E", "W"])], "winner": A,
         "points": {A: {"match_points": 1.0}, B: {"match_points": 0.0}}, "details": {},
         "rooms": [{"room": "open", "seats": {A: ["N", "S"], B: ["E", "W"]}}], "seat_choice": A,
         "lineups": {A: {"open": [1, 2], "closed": [3, 4]}}, "room_status": {"open": {"status": "confirmed"}},
         "lineup_deadlines": {A: "2026-12-12T01:45:00+08:00"}, "tie_break_needed": False,
         "played": {"open": {A: [1, 2]}}},
        {"number": 2, "home": C, "reason": "third-place match: seed 3 v seed 4",
         "why": {"kind": "knockout", "third_place": True, "seeds": [3, 4]}, "status": "pending", "version": 0,
         "sides": [_side(C, ["N", "S"]), _side(D, ["E", "W"])], "points": {}, "details": {}},
    ]
    got = round_out(doc, tables, NAMES).model_dump(mode="json")
    assert got == _reference(doc, tables, NAMES).model_dump(mode="json")
    assert [t["match_name"] for t in got["tables"]] == ["final", "third_place"]


def test_a_draws_codes_made_from_hmacs_keyed_once_are_table_code_and_code_hash():
    """_RoundCodes (a draw's 200,000 HMACs at 100,000 entries, keyed once) makes the same codes as table_code and the
    same hashes as code_hash: a code typed alone finds its table by code_hash, a reprinted card shows table_code's."""
    import hashlib
    import hmac

    from chalicelib.services import rounds
    from chalicelib.services.rounds import _RoundCodes, code_hash
    secret = b"s" * 40
    made = _RoundCodes("01JEVENT", 12, secret)
    for table, side in [(1, 0), (1, 1), (999, 2), (10_000, 0), (50_000, 1)]:
        code = table_code("01JEVENT", 12, table, side, secret)
        assert made.code(table, side) == code and len(code) == 10
        assert made.hash_of(code) == code_hash(code, secret) == code_hash(code[:5] + "-" + code[5:].lower(), secret)
    assert made.code(1, 0) != _RoundCodes("01JEVENT", 13, secret).code(1, 0) != _RoundCodes("01JEVENT", 12, b"t").code(1, 0)
    for secret in (b"k" * 64, b"long" * 30, bytes(range(65)), b""):   # a block's length, longer (hashed first), none
        made = _RoundCodes("01JEVENT", 3, secret)
        code = table_code("01JEVENT", 3, 7, 1, secret) if secret else made.code(7, 1)
        assert made.code(7, 1) == hmac.digest(secret, b"01JEVENT:3:7:1", hashlib.sha256)[:10].translate(
            rounds._CODE_SYMBOLS).decode() == code
        assert made.hash_of(code) == hmac.new(secret, b"code:" + code.encode(), hashlib.sha256).hexdigest()


def test_a_draws_answer_names_only_the_entries_it_shows_and_says_the_same():
    """The draw's answer looks up only answer_ids (its tables' sides, avoided rematches, ids in its reasons, byes,
    notes, early finishers and their chasers, late entries): with only those names it is the answer with every
    entry's name, and each of them is needed (one taken out changes it)."""
    from chalicelib.services.rounds import answer_ids
    e, f, g, h, k = ("01JE" + c * 22 for c in "EFGHK")
    names = {**NAMES, **{x: {"name": f"队{x[-1]}", "club": ""} for x in (e, f, g, h, k)}}
    tables = [{"number": 1, "home": A, "reason": f"floated from 2 to 1; avoids rematch with {e}",
               "why": {"kind": "float", "high": 2.0, "low": 1.0, "avoids": [A, e]}, "status": "pending", "version": 0,
               "sides": [_side(A, ["N", "S"]), _side(B, ["E", "W"])], "points": {}, "details": {}, "fixed": None},
              {"number": 2, "home": C, "reason": f"note {f}", "why": {"kind": "same_score", "score": 1.0},
               "status": "pending", "version": 0, "sides": [_side(C, ["N", "S"]), _side(g, ["E", "W"])], "points": {},
               "details": {}, "fixed": None}]
    doc = _doc(notes=[f"rematch unavoidable: {h} v {A}"],
               early_finish={B: {"from_round": 3, "average": {"match_points": 1.5}, "place": 1, "chaser": k}})
    wanted = answer_ids(doc, tables)
    assert {A, B, C, D, e, f, g, h, k} <= wanted
    every = round_out(doc, tables, names).model_dump_json()
    assert round_out(doc, tables, {x: v for x, v in names.items() if x in wanted}).model_dump_json() == every
    for x in (e, f, g, h, k, C, D):
        assert round_out(doc, tables, {y: v for y, v in names.items() if y in wanted - {x}}).model_dump_json() != every, x
