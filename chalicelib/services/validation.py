"""Turns pydantic errors into the `details` of a 400 invalid_request: one entry per field, with the field as
people say it (姓名, 手机号, 队员 2) and the problem in Chinese and English — never a model path alone."""
from __future__ import annotations

import re

_FIELD_PREFIX = re.compile(r"^(?:Value error, )?([A-Za-z_][\w\.\[\]]*): (.*)$", re.S)

FIELDS = {  # last path segment → (中文, English)
    "name": ("姓名/名称", "name"), "phone": ("手机号", "phone number"), "members": ("队员", "members"),
    "club": ("所属商会/俱乐部", "club"), "contact": ("联系人", "contact"), "items": ("报名项目", "events"),
    "event_id": ("比赛项目", "event"), "eligibility_code": ("会员码", "member code"), "note": ("备注", "note"),
    "login": ("手机号或邮箱", "phone number or e-mail"), "password": ("密码", "password"),
    "reason": ("理由", "reason"), "text": ("申诉内容", "appeal text"), "capacity": ("名额", "places"),
    "starts_on": ("开始日期", "start date"), "ends_on": ("结束日期", "end date"), "timezone": ("时区", "time zone"),
    "currency": ("币种", "currency"), "amount": ("金额", "amount"), "entry_id": ("参赛单位", "entry"),
}
TYPES = {  # pydantic error type → (中文, English)
    "missing": ("必填", "required"), "string_too_short": ("不能为空", "cannot be empty"),
    "string_too_long": ("太长了", "too long"), "too_short": ("至少要有一项", "needs at least one"),
    "too_long": ("太多了", "too many"), "int_type": ("请填整数", "a whole number"),
    "int_parsing": ("请填整数", "a whole number"), "greater_than_equal": ("太小了", "too small"),
    "less_than_equal": ("太大了", "too large"), "extra_forbidden": ("不认识这一项", "not a known field"),
    "string_pattern_mismatch": ("格式不对", "wrong format"), "date_type": ("日期格式不对", "not a date"),
    "date_from_datetime_parsing": ("日期格式不对", "not a date"), "bool_type": ("请填是或否", "true or false"),
}


def _label(loc: str) -> tuple[str, str]:
    parts = [p for p in loc.split(".") if p]
    zh, en = [], []
    for i, p in enumerate(parts):
        if p.isdigit():
            if i and parts[i - 1] == "members":
                zh[-1], en[-1] = f"队员 {int(p) + 1}", f"member {int(p) + 1}"
            elif i and parts[i - 1] == "items":
                zh[-1], en[-1] = f"第 {int(p) + 1} 项报名", f"event {int(p) + 1}"
            continue
        z, e = FIELDS.get(p, (p, p.replace("_", " ")))
        if zh and zh[-1] == z:   # "phone: …" inside the phone field names it once
            continue
        zh.append(z)
        en.append(e)
    return " · ".join(zh) or "请求", " · ".join(en) or "request"


def validation_details(exc) -> list[dict]:
    out = []
    for err in exc.errors(include_url=False, include_input=False):
        loc = ".".join(str(p) for p in err.get("loc", ()) if p not in ("function-after", "function-before"))
        msg = err.get("msg", "invalid")
        m = _FIELD_PREFIX.match(msg)
        if m:  # model-level checks name their field first ("entry: …")
            loc = ".".join(x for x in (loc, m.group(1)) if x)
            msg = m.group(2)
        elif msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        kind = err.get("type")
        label_zh, label_en = _label(loc)
        if loc.endswith("phone") and kind == "value_error":
            zh = "手机号格式不对（如 13800000000 或 +852…）"
        else:
            zh = TYPES.get(kind, ("请检查这一项", msg))[0]
        out.append({"field": loc or "body", "message": msg, "type": kind, "label_zh": label_zh, "label_en": label_en,
                    "message_zh": zh})
    return out


def summary(details: list[dict]) -> str:
    """The error's message: what to change, Chinese first."""
    zh = "；".join(f"{d['label_zh']}：{d['message_zh']}" for d in details[:5])
    en = "; ".join(f"{d['label_en']}: {d['message']}" for d in details[:5])
    return f"请修改：{zh} · Please change: {en}"


# C0 controls but tab/newline/CR, DEL, C1 controls, and the bidi embeddings, overrides and isolates (U+202A–E,
# U+2066–9) — invisible, and able to reorder what a name shows. Newlines only in fields meant for prose.
_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_BAD_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
MULTI_LINE = {"note", "reason", "text", "ruling", "message", "description", "comment", "notes", "address",
              "private_key", "app_private_key", "alipay_public_key", "public_key"}   # PEM keys (payment accounts)


def bad_characters(data, path: str = "") -> list[dict]:
    """Every string in a parsed JSON body holding a character that is not allowed, as `details` entries."""
    out: list[dict] = []
    if isinstance(data, dict):
        for k, v in data.items():
            out += bad_characters(v, f"{path}.{k}" if path else str(k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += bad_characters(v, f"{path}.{i}")
    elif isinstance(data, str):
        field = path.rsplit(".", 1)[-1]
        found = (_BAD if field in MULTI_LINE else _BAD_ONE_LINE).search(data)
        if found:
            label_zh, label_en = _label(path)
            char = f"U+{ord(found.group()):04X}"
            out.append({"field": path or "body", "type": "invalid_characters", "label_zh": label_zh,
                        "label_en": label_en, "character": char,
                        "message": f"holds a control or direction character ({char})",
                        "message_zh": f"含有不允许的控制字符（{char}）"})
    return out
