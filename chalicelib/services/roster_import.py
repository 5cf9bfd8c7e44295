"""The secretariat's spreadsheet (seed 003: teams "提交至商会秘书处"): a template per event, a dry run row by row,
then the import under registration's own rules (places, eligibility, one person once per event).

The plan is pure (`plan`): rows in, one verdict per row out, from the event and the entries already there. The
import writes each planned row through `registration.register(desk=True)`, so its places and person items are the
same conditional transaction as an online registration's. A row already imported (the same people under the same
name) is found again and written no more: a second import of the same sheet changes nothing.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import csv
import io
import re
from dataclasses import dataclass, field

from pydantic import ValidationError

from ..domain.entry import EntryStatus
from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..models import Event, OfflinePaymentIn, RegistrationIn
from ..phones import key_form
from . import sheet_reader
from .export import neutralise

MAX_ROWS = sheet_reader.MAX_ROWS
YES = {"是", "已付", "已付款", "已交", "y", "yes", "paid", "1", "true", "✓", "√", "có", "x",
       "已缴", "已缴费", "已交费", "已收", "已收款", "是的", "付了", "缴了"}   # a secretariat's own words (issue 39)
NO = {"", "否", "未付", "未付款", "n", "no", "unpaid", "0", "false", "không", "未缴", "未缴费", "未交", "未交费", "没交", "没付"}
# Statuses whose people still count as entered (their person items are written; cancel/withdraw/merge free them).
WAITLISTED_PAID = "候补：无名额，付款未记录 · Waitlisted: no place yet, so the payment is not recorded."
ACTIVE = (EntryStatus.CONFIRMED, EntryStatus.PENDING_PAYMENT, EntryStatus.WAITLISTED, EntryStatus.PARTNER_WANTED,
          EntryStatus.DISQUALIFIED)


@dataclass(frozen=True)
class Column:
    key: str          # stable: what a row error names ("m2_phone")
    label: str        # the template's header (bilingual)
    aliases: tuple[str, ...] = ()


def columns(event: Event) -> list[Column]:
    """The event's columns: one name/phone/code group per member of its roster."""
    size = event.config.entry.members
    individual = size == 1
    cols = [Column("name", "姓名 Name" if individual else "队名 Team name", ("队名", "名称", "team", "name", "姓名")),
            Column("club", "单位/商会 Club", ("单位", "商会", "俱乐部", "club"))]
    for k in range(1, size + 1):
        who = "" if individual else str(k)
        cols += [Column(f"m{k}_name", f"队员{who} 姓名 Member {k} name", (f"队员{k}", f"队员{k}姓名", f"member{k}")),
                 Column(f"m{k}_phone", f"队员{who} 手机 Member {k} phone", (f"手机{k}", f"电话{k}", f"phone{k}")),
                 Column(f"m{k}_code", f"队员{who} 会员码 Member {k} code", (f"会员码{k}", f"code{k}"))]
        if _mixed(event):   # rules.md §9: a mixed event's roster gives every member's gender
            cols.append(Column(f"m{k}_gender", f"队员{who} 性别（男/女） Member {k} gender (m/f)", (f"性别{k}", f"gender{k}")))
    cols.append(Column("paid", "已付款（是/否） Paid (yes/no)", ("已付款", "已付", "付款", "paid")))
    return cols


def _mixed(event: Event) -> bool:
    return bool(event.config.mixed_pairs or getattr(event.config, "mixed_team", False))


GENDERS = {"男": "m", "m": "m", "male": "m", "man": "m", "女": "f", "f": "f", "female": "f", "woman": "f"}


def _norm(text: str) -> str:
    return re.sub(r"[\s（）()/：:·_\-]", "", str(text or "")).lower()


# A secretariat's own headers (issue 39: 队伍名称 / 所属商会 / 队员1电话 / 会员码 / 是否缴费): what a header is about,
# by the words in it, and which member by its number (队员1, 1号队员, 队员一, member 1).
_CN_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_PHONE = ("电话", "手机", "联系方式", "phone", "mobile", "tel")
_CODE = ("会员码", "会员号", "会员编号", "会员证", "code")
_PAID = ("缴费", "交费", "付款", "已付", "收费", "paid")
_CLUB = ("商会", "单位", "俱乐部", "所属", "协会", "club", "org")
_TEAM = ("队名", "队伍", "参赛队", "组名", "名称", "team")
_MEMBER = ("队员", "成员", "选手", "球员", "member", "player")


def _member_number(text: str) -> int | None:
    m = re.search(r"(\d+)", text)
    if m:
        return int(m.group(1))
    m = re.search(r"(?:队员|成员|选手|第)([一二两三四五六七八九十])", text)
    return _CN_DIGITS[m.group(1)] if m else None


def _synonym(event: Event, header: str) -> str | None:
    """The column a header of the secretariat's own is about, or None (named back as not read, never dropped)."""
    text = _norm(header)
    if not text:
        return None
    size = event.config.entry.members
    k = _member_number(text)
    if any(w in text for w in _PAID):
        return "paid"
    if k is not None and not 1 <= k <= size:
        return None
    if any(w in text for w in _PHONE):
        return f"m{k or 1}_phone"
    if any(w in text for w in _CODE):
        return f"m{k or 1}_code"
    if k is not None and (any(w in text for w in _MEMBER) or "姓名" in text or "名字" in text or "name" in text):
        return f"m{k}_name"
    if any(w in text for w in _CLUB):
        return "club"
    if any(w in text for w in _TEAM):
        return "name"
    return None


def read_header(event: Event, header: list, mapping: dict[str, str | None] | None = None) -> list[dict]:
    """Each of the sheet's own headers and what it is read as: the desk's mapping first (a header → a column key,
    or "": not imported), then the template's labels and aliases, then the synonyms above. A column is read once:
    a second header for it is named back unread."""
    cols = columns(event)
    labels = {c.key: c.label for c in cols}
    known: dict[str, str] = {}
    for col in cols:
        for name in (col.label, col.key, *col.aliases, *col.label.split(" ", 1)):
            known.setdefault(_norm(name), col.key)
    mapping = {h: (k or None) for h, k in (mapping or {}).items()}   # "": leave that column out (null means "not given")
    unknown = sorted({v for v in mapping.values() if v is not None and v not in labels})
    if unknown:
        raise errors.InvalidRequest("mapping: 没有这一列 · No such column: " + ", ".join(unknown),
                                    {"field": "mapping", "keys": unknown, "columns": list(labels)})
    out, taken = [], set()
    for i, cell in enumerate(header):
        text = str(cell or "").strip()
        if not text:
            continue
        if text in mapping:
            key, how = mapping[text], "mapping"
        else:
            key = known.get(_norm(text)) or _synonym(event, text)
            how = "header" if key else None
        if key in taken:
            key, how = None, "again"    # the column is read from an earlier header already
        if key:
            taken.add(key)
        out.append({"index": i, "header": text, "key": key, "label": labels.get(key) if key else None, "by": how})
    return out


# --------------------------------------------------------------------------- the template

def _example(event: Event) -> list[str]:
    size = event.config.entry.members
    row = ["河池一队" if size > 1 else "张三", "南宁河池商会"]
    names = ["张三", "李四", "王五", "赵六", "钱七", "孙八", "周九", "吴十", "郑一", "冯二", "陈三", "褚四"]
    for k in range(size):
        row += [names[k], f"1380013{k:04d}" if k == 0 else "", ""]
        if _mixed(event):
            row.append("男" if k < max(1, size // 2) else "女")
    return row + ["否"]


def template_csv(event: Event) -> str:
    """UTF-8 with BOM (Excel shows the Chinese headers), the headers only: the secretariat fills the rows."""
    buf = io.StringIO()
    buf.write("\ufeff")
    csv.writer(buf).writerow([c.label for c in columns(event)])
    return buf.getvalue()


def template_xlsx(event: Event) -> bytes:
    from openpyxl import Workbook
    from openpyxl.styles import Font, PatternFill
    wb = Workbook()
    ws = wb.active
    ws.title = "报名 entries"
    for c, col in enumerate(columns(event), start=1):
        cell = ws.cell(row=1, column=c, value=col.label)
        cell.font, cell.fill = Font(bold=True), PatternFill("solid", fgColor="FFE8E8E8")
        ws.column_dimensions[cell.column_letter].width = max(12, len(col.label) + 4)
        # Phones and codes are text: Excel would turn 13800138000 into 1.38E+10 and drop a code's leading zeros.
        if col.key.endswith(("_phone", "_code")):
            for r in range(2, 502):
                ws.cell(row=r, column=c).number_format = "@"
    ws.freeze_panes = "A2"
    notes = wb.create_sheet("说明 notes")
    lines = [
        f"{event.config.name}：每行一个{'报名' if event.config.entry.members == 1 else '队伍'}，"
        "第一张表的第一行是表头，请勿改动。One row per entry; keep the first sheet's header row as it is.",
        f"每队 {event.config.entry.members} 人；至少填一个手机号。Each entry has {event.config.entry.members} member(s); "
        "give at least one phone.",
        "同一手机号在本项目只能报名一次。A phone number enters this event once.",
        "已付款填 是 或 否。Paid: yes or no.",
        "例 Example: " + " | ".join(_example(event)),
    ]
    if event.config.registration.eligibility.kind == "codes":
        lines.insert(3, "本项目需要会员码：至少一位队员填写有效的会员码。A valid member code is needed (one member's is enough).")
    for r, line in enumerate(lines, start=1):
        notes.cell(row=r, column=1, value=line)
    notes.column_dimensions["A"].width = 120
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


# --------------------------------------------------------------------------- reading a sheet

def read_rows(content: bytes) -> list[list[str]]:
    """A sheet's rows as text: XLSX (a zip: "PK") by openpyxl, otherwise CSV in UTF-8 or, as Excel in China saves
    it, GB18030. Anything else is `import_unreadable`."""
    if content[:2] == b"PK":
        return _xlsx_rows(content)
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            text = content.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        raise errors.ImportUnreadable("文件既不是 XLSX 也不是 CSV · The file is neither XLSX nor CSV.")
    if "\x00" in text:
        raise errors.ImportUnreadable("文件既不是 XLSX 也不是 CSV · The file is neither XLSX nor CSV.")
    return sheet_reader.csv_rows(text)


def _cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)   # a phone typed as a number: 13800138000.0 → "13800138000"
    if isinstance(value, bool):
        return "是" if value else "否"
    return str(value).strip()


def _xlsx_rows(content: bytes) -> list[list[str]]:
    """Read within the import's bounds (services/sheet_reader.py); trailing empty cells dropped."""
    rows = sheet_reader.xlsx_rows(content, _cell_text)
    for row in rows:
        while row and row[-1] == "":
            row.pop()
    return rows


# --------------------------------------------------------------------------- the plan (pure)

@dataclass
class RowPlan:
    row: int                       # the spreadsheet's own row number (the header is row 1)
    status: str                    # ok | exists | duplicate | error | created (after the import)
    name: str = ""
    club: str = ""
    members: list[dict] = field(default_factory=list)   # name, phone masked, member_code
    paid: bool = False
    code: str | None = None        # an error's code (the API's own: roster_size, not_eligible, duplicate_entry…)
    field: str | None = None       # the column it is about ("m2_phone")
    message: str = ""
    will_be: str | None = None     # confirmed | pending_payment | waitlisted
    entry_id: str | None = None    # the entry it made, or the one it already is
    same_as_row: int | None = None
    body: RegistrationIn | None = None
    record_payment: bool = False   # an already imported, unpaid entry that the sheet now says is paid

    def out(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("body",) and v not in (None, "", [])} | {
            "row": self.row, "status": self.status, "paid": self.paid}


def mask(phone: str | None) -> str | None:
    """Enough of a phone for the desk to recognise it, not enough to copy it off a screen."""
    if not phone:
        return None
    return phone[:3] + "*" * max(0, len(phone) - 7) + phone[-4:] if len(phone) > 7 else "*" * (len(phone) - 2) + phone[-2:]


def _field_of(loc: tuple, k_of_member: dict[int, int]) -> str:
    """A pydantic error location on RegistrationIn → the sheet's column key."""
    if loc and loc[0] == "members" and len(loc) > 1 and isinstance(loc[1], int):
        k = k_of_member.get(loc[1], loc[1] + 1)
        part = {"name": "name", "phone": "phone", "member_code": "code"}.get(str(loc[2]) if len(loc) > 2 else "", "name")
        return f"m{k}_{part}"
    return {"name": "name", "club": "club"}.get(str(loc[0]) if loc else "", "name")


def _parse(event: Event, row_no: int, values: dict[str, str]) -> RowPlan:
    size = event.config.entry.members
    plan = RowPlan(row=row_no, status="ok", name=values.get("name", ""), club=values.get("club", ""))
    paid_text = _norm(values.get("paid", ""))
    if paid_text in {_norm(y) for y in YES}:
        plan.paid = True
    elif paid_text not in {_norm(n) for n in NO}:
        plan.status, plan.code, plan.field = "error", "invalid_request", "paid"
        plan.message = "已付款请填 是 或 否 · Paid: write yes or no."
        return plan
    members, k_of_member = [], {}
    for k in range(1, size + 1):
        name, phone, code, sex = (values.get(f"m{k}_{p}", "") for p in ("name", "phone", "code", "gender"))
        if not (name or phone or code):
            continue
        if not name:
            plan.status, plan.code, plan.field = "error", "invalid_request", f"m{k}_name"
            plan.message = f"队员{k}缺少姓名 · Member {k} has no name."
            return plan
        gender = GENDERS.get(_norm(sex)) if sex else None
        if sex and gender is None:
            plan.status, plan.code, plan.field = "error", "invalid_request", f"m{k}_gender"
            plan.message = f"队员{k}性别请填 男 或 女 · Member {k} gender: write m or f."
            return plan
        k_of_member[len(members)] = k
        members.append({"name": name, "phone": phone or None, "member_code": code or None,
                        **({"gender": gender} if gender else {})})
    plan.members = [{"name": m["name"], "phone": m["phone"], "member_code": m["member_code"]} for m in members]
    if not members:
        plan.status, plan.code, plan.field = "error", "roster_size", "m1_name"
        plan.message = "没有队员 · The row has no members."
        return plan
    codes = [m["member_code"] for m in members if m["member_code"]]
    eligibility = event.config.registration.eligibility
    chosen = next((c for c in codes if c.strip().upper() in eligibility.codes), codes[0] if codes else None)
    try:
        body = RegistrationIn.model_validate({"name": plan.name or None, "club": plan.club, "members": members,
                                              "eligibility_code": chosen})
    except ValidationError as exc:
        first = exc.errors()[0]
        plan.status, plan.code = "error", "invalid_request"
        plan.field = _field_of(tuple(first["loc"]), k_of_member)
        if first["loc"][:1] == ("members",) and len(first["loc"]) == 1:
            plan.field = "m1_name"
        plan.message = first["msg"].removeprefix("Value error, ")
        return plan
    plan.body = body
    plan.members = [{"name": m.name, "phone": m.phone, "member_code": m.member_code, "gender": m.gender}
                    for m in body.members]
    return plan


def _member_error(event: Event, plan: RowPlan, now) -> None:
    """Registration's own refusal (roster size, phone, eligibility), outside the registration window."""
    from .registration import registration_refusal
    refusal = registration_refusal(event, plan.body, now, window=False)
    if refusal is None:
        return
    plan.status, plan.code, plan.message = "error", refusal.code, refusal.message
    plan.field = {"roster_size": "m1_name", "phone_required": "m1_phone", "not_eligible": "m1_code",
                  "mixed_pair_genders": "m1_gender", "mixed_team_genders": "m1_gender"}.get(refusal.code)
    have, fewest = len(plan.body.members), event.config.entry.fewest
    if refusal.code == "roster_size" and have < fewest:
        # a member short: the member whose name is missing, not the team's name (issue 39)
        plan.field = f"m{have + 1}_name"
        plan.message = f"队员{have + 1}缺少姓名 · Member {have + 1} has no name."


def plan(event: Event, rows: list[list[str]], existing: list, now, mapping: dict | None = None) -> list[RowPlan]:
    """Every row's verdict, in order, as the import would make it now: places counted from the event's counters
    and the rows before it."""
    if not rows or not any(rows[0]):
        raise errors.ImportUnreadable("文件是空的 · The file is empty.")
    read = read_header(event, rows[0], mapping)
    header = {c["index"]: c["key"] for c in read if c["key"]}
    needed = {"m1_name"}
    if missing := sorted(needed - set(header.values())):
        labels = {c.key: c.label for c in columns(event)}
        raise errors.ImportColumnsMissing("缺少列 · Columns missing: " + ", ".join(labels[m] for m in missing),
                                          {"missing": missing, "columns": [c.label for c in columns(event)],
                                           "headers": [{"header": c["header"], "key": c["key"], "by": c["by"]} for c in read],
                                           "fields": [{"key": c.key, "label": c.label} for c in columns(event)]})
    body_rows = [(n, r) for n, r in enumerate(rows[1:], start=2) if any(cell.strip() for cell in r)]
    if len(body_rows) > MAX_ROWS:
        raise sheet_reader.too_large(f"最多 {MAX_ROWS} 行", f"At most {MAX_ROWS} rows per import.", "rows", MAX_ROWS)
    people: dict[str, object] = {}      # phone → the existing entry holding it
    for entry in existing:
        if entry.status in ACTIVE:
            for m in entry.members:
                if m.phone:   # in today's key form: an entry stored with +86… is the same person
                    people[key_form(m.phone)] = entry
    seen: dict[str, int] = {}           # phone → the earlier row of this sheet
    free = max(0, event.config.capacity - event.counters.taken)
    out: list[RowPlan] = []
    for n, cells in body_rows:
        values = {key: (cells[i] if i < len(cells) else "") for i, key in header.items()}
        p = _parse(event, n, values)
        out.append(p)
        if p.status != "ok":
            continue
        _member_error(event, p, now)
        if p.status != "ok":
            continue
        phones = sorted({m.phone for m in p.body.members if m.phone})
        earlier = next((seen[ph] for ph in phones if ph in seen), None)
        if earlier is not None:
            p.status, p.code, p.same_as_row = "duplicate", "duplicate_entry", earlier
            p.field = _phone_field(p, next(ph for ph in phones if ph in seen))
            p.message = f"手机号与第 {earlier} 行重复 · A phone already on row {earlier}."
            continue
        for ph in phones:
            seen[ph] = n
        holder = next((people[ph] for ph in phones if ph in people), None)
        if holder is not None:
            if _same_entry(holder, p):
                p.status, p.entry_id = "exists", holder.id
                p.will_be = holder.status
                p.record_payment = p.paid and holder.status == EntryStatus.PENDING_PAYMENT and holder.amount_paid < holder.amount_due
                p.message = "已导入 · Already imported."
            else:
                p.status, p.code = "duplicate", "duplicate_entry"
                p.field = _phone_field(p, next(ph for ph in phones if ph in people))
                p.message = f"该手机号已报名（{holder.name}） · This phone is already entered ({holder.name})."
            continue
        fee_due = event.config.fee.amount > 0
        if free > 0:
            free -= 1
            p.will_be = str(EntryStatus.PENDING_PAYMENT if fee_due and not p.paid else EntryStatus.CONFIRMED)
        elif event.config.waitlist:
            p.will_be = str(EntryStatus.WAITLISTED)
            if p.paid and fee_due:
                p.message = WAITLISTED_PAID
        else:
            p.status, p.code, p.field = "error", "event_full", None
            p.message = "名额已满 · The event is full."
    return out


def _phone_field(p: RowPlan, phone: str) -> str | None:
    k = next((i for i, m in enumerate(p.members, start=1) if m["phone"] == phone), None)
    return f"m{k}_phone" if k else None


def _same_entry(entry, p: RowPlan) -> bool:
    """The row is this entry, imported before: the same people (phones and names) under the same name."""
    mine = sorted((m.name, m.phone or "") for m in p.body.members)
    theirs = sorted((m.name, key_form(m.phone) or "") for m in entry.members)
    expected_name = p.body.name or (p.body.members[0].name if len(p.body.members) == 1 else p.body.members[0].name + "队")
    return mine == theirs and entry.name == expected_name


# --------------------------------------------------------------------------- dry run and import

def run(deps: Deps, event: Event, content: bytes, *, dry_run: bool, mapping: dict | None = None) -> dict:
    from . import registration
    rows = read_rows(content)
    now = deps.clock()
    existing = deps.repos.entries.list(event.id)
    plans = plan(event, rows, existing, now, mapping)
    if not dry_run:
        for p in plans:
            if p.status == "ok":
                _write(deps, event, p, registration)
            elif p.status == "exists" and p.record_payment:
                entry = deps.repos.entries.get(event.id, p.entry_id)
                if entry and entry.status == EntryStatus.PENDING_PAYMENT and entry.amount_paid < entry.amount_due:
                    _pay(deps, entry, registration)
                    p.will_be, p.message = str(EntryStatus.CONFIRMED), "已导入，已记为付款 · Already imported; now recorded as paid."
    counts: dict[str, int] = {}
    for p in plans:
        counts[p.status] = counts.get(p.status, 0) + 1
    read = read_header(event, rows[0], mapping)
    # the sheet's own headers and what each was read as (an unknown one named, key null), and the columns a
    # header can be mapped to (the desk corrects the mapping on screen and sends it back)
    return {"dry_run": dry_run, "rows": [_public(p) for p in plans], "counts": counts,
            "columns": [{"header": sheet_reader.clip(c["header"]), "key": c["key"], "label": c["label"], "by": c["by"]}
                        for c in read],
            "fields": [{"key": c.key, "label": c.label} for c in columns(event)]}


def _public(p: RowPlan) -> dict:
    """A row as the answer shows it: phones masked, and of any cell only its first 100 characters."""
    clip = sheet_reader.clip
    out = p.out()
    for key in ("name", "club", "message"):
        if key in out:
            out[key] = clip(out[key])
    out["members"] = [{"name": clip(neutralise(m["name"])), "phone": mask(clip(m["phone"])),
                       "member_code": clip(m["member_code"]),
                       **({"gender": m["gender"]} if m.get("gender") else {})}
                      for m in p.members]
    out.pop("record_payment", None)
    return out


def _pay(deps: Deps, entry, registration) -> None:
    registration.record_offline(deps, entry, OfflinePaymentIn(method="transfer", amount=entry.amount_due - entry.amount_paid,
                                                               reference="名单导入 · roster import"))


def _write(deps: Deps, event: Event, p: RowPlan, registration) -> None:
    """One row through registration (desk rules); the rule that refuses it now (a place taken meanwhile, a phone
    registered online since the dry run) becomes the row's answer."""
    try:
        answer = registration.register(deps, event.id, p.body, None, fresh=True, desk=True)
    except errors.DomainError as exc:
        p.status, p.code, p.message = ("duplicate" if exc.code == "duplicate_entry" else "error"), exc.code, exc.message
        return
    entry = deps.repos.entries.get(event.id, answer.entry.id)
    if p.paid and entry.status == EntryStatus.PENDING_PAYMENT:
        _pay(deps, entry, registration)
        entry = deps.repos.entries.get(event.id, entry.id)
    p.status, p.entry_id, p.will_be = "created", entry.id, entry.status
    p.message = WAITLISTED_PAID if p.paid and entry.status == EntryStatus.WAITLISTED and event.config.fee.amount else ""
