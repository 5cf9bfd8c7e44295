"""The messages' words in zh-CN, en and vi (api.md v1.3 "Messages"). In China an SMS is sent as a pre-approved
template and its parameters: these zh-CN texts are what is submitted for approval, and `PARAMS` gives each
template's parameters in order (Tencent Cloud takes a list; Aliyun a JSON object by name). The template codes the
provider assigns are configuration (messages/setup.py), never here. E-mail, SNS abroad and the local outbox file
send the rendered text."""
from __future__ import annotations

PARAMS: dict[str, tuple[str, ...]] = {
    "sign_in_code": ("code",),
    "organiser_code": ("code",),
    "registration_received": ("event", "link"),
    "paid": ("event",),
    "payment_failed": ("event", "link"),
    "waitlist_promoted": ("event", "deadline", "link"),
    "waitlist_confirmed": ("event",),
    "hold_ending": ("event", "deadline", "link"),
    "hold_released": ("event", "link"),
    "withdrawn": ("event",),
    "refunded": ("event", "amount"),
    "draw": ("event", "round", "table", "seat", "time"),
    "confirm_result": ("event", "round", "table", "link"),
    "appeal_decided": ("event", "decision"),
    "dispute_settled": ("event", "round", "table", "link"),
    "schedule_changed": ("event", "when"),
    "final_place": ("event", "place"),
    "prize": ("event", "prize"),
    "notice": ("tournament", "text"),
}

TEXTS: dict[str, dict[str, str]] = {
    "sign_in_code": {
        "zh-CN": "您的登录验证码是 {code}，10 分钟内有效。请勿告诉他人。",
        "en": "Your sign-in code is {code}. It is valid for 10 minutes. Do not share it.",
        "vi": "Mã đăng nhập của bạn là {code}, có hiệu lực trong 10 phút. Không chia sẻ mã này.",
    },
    "organiser_code": {
        "zh-CN": "您的组委会账号验证码是 {code}，10 分钟内有效，用于重置密码或绑定手机。如非本人操作，请忽略。",
        "en": "Your organiser account code is {code}, valid for 10 minutes, to reset your password or confirm this "
              "phone. If you did not ask for it, ignore this message.",
        "vi": "Mã tài khoản ban tổ chức của bạn là {code}, có hiệu lực trong 10 phút, để đặt lại mật khẩu hoặc xác "
              "nhận số điện thoại. Nếu không phải bạn yêu cầu, hãy bỏ qua tin nhắn này.",
    },
    "registration_received": {
        "zh-CN": "您已报名{event}。查看、修改或取消报名：{link}",
        "en": "You are registered for {event}. View, change or cancel: {link}",
        "vi": "Bạn đã đăng ký {event}. Xem, sửa hoặc hủy: {link}",
    },
    "paid": {
        "zh-CN": "{event}报名费已收到，报名已确认。",
        "en": "Your entry fee for {event} is paid: your place is confirmed.",
        "vi": "Đã nhận lệ phí {event}: suất của bạn đã được xác nhận.",
    },
    "payment_failed": {
        "zh-CN": "{event}报名费未支付成功，请重新支付：{link}",
        "en": "Your payment for {event} did not go through. Pay again: {link}",
        "vi": "Thanh toán cho {event} không thành công. Thanh toán lại: {link}",
    },
    "waitlist_promoted": {
        "zh-CN": "{event}候补成功！请在 {deadline} 前付款，逾期名额将释放：{link}",
        "en": "You are off the waitlist for {event}! Pay by {deadline} or the place is released: {link}",
        "vi": "Bạn đã được vào {event} từ danh sách chờ! Thanh toán trước {deadline} để giữ suất: {link}",
    },
    "waitlist_confirmed": {
        "zh-CN": "{event}候补成功，报名已确认。",
        "en": "You are off the waitlist for {event}: your place is confirmed.",
        "vi": "Bạn đã được vào {event} từ danh sách chờ: suất của bạn đã được xác nhận.",
    },
    "hold_ending": {
        "zh-CN": "{event}名额保留至 {deadline}，还有 10 分钟，请尽快付款：{link}",
        "en": "Your place in {event} is held until {deadline}, 10 minutes from now. Pay now: {link}",
        "vi": "Suất của bạn ở {event} được giữ đến {deadline}, còn 10 phút. Thanh toán ngay: {link}",
    },
    "hold_released": {
        "zh-CN": "{event}付款时间已过，名额已释放。仍想参赛请重新报名或联系报名台：{link}",
        "en": "The time to pay for {event} ran out: your place was released. Register again or ask the desk: {link}",
        "vi": "Đã hết thời gian thanh toán {event}: suất của bạn đã được nhả. Đăng ký lại hoặc liên hệ bàn tiếp đón: {link}",
    },
    "withdrawn": {
        "zh-CN": "您已退出{event}。",
        "en": "You have withdrawn from {event}.",
        "vi": "Bạn đã rút khỏi {event}.",
    },
    "refunded": {
        "zh-CN": "{event}报名费已退款 {amount}，原路退回。",
        "en": "{amount} of your fee for {event} has been refunded to how you paid.",
        "vi": "Đã hoàn {amount} lệ phí {event} về phương thức bạn đã thanh toán.",
    },
    "draw": {
        "zh-CN": "{event}第 {round} 轮：桌 {table} · {seat} · {time}",
        "en": "{event} round {round}: table {table} · {seat} · {time}",
        "vi": "{event} vòng {round}: bàn {table} · {seat} · {time}",
    },
    "confirm_result": {
        "zh-CN": "{event}第 {round} 轮桌 {table}：对方已录入成绩，请核对确认：{link}",
        "en": "{event} round {round}, table {table}: the other side entered your result — confirm it: {link}",
        "vi": "{event} vòng {round}, bàn {table}: bên kia đã nhập kết quả — hãy xác nhận: {link}",
    },
    "appeal_decided": {
        "zh-CN": "{event}：您的申诉已裁决：{decision}",
        "en": "{event}: your appeal has been decided: {decision}",
        "vi": "{event}: khiếu nại của bạn đã được quyết định: {decision}",
    },
    "dispute_settled": {
        "zh-CN": "{event}第 {round} 轮桌 {table}：裁判长已裁定争议成绩，结果及理由：{link}",
        "en": "{event} round {round}, table {table}: the director settled the disputed result. Result and reason: {link}",
        "vi": "{event} vòng {round}, bàn {table}: tổng trọng tài đã phân xử kết quả tranh chấp. Kết quả và lý do: {link}",
    },
    "schedule_changed": {
        "zh-CN": "{event}赛程调整：{when}",
        "en": "{event} schedule change: {when}",
        "vi": "{event} thay đổi lịch: {when}",
    },
    "final_place": {
        "zh-CN": "{event}比赛结束，您获得第 {place} 名。",
        "en": "{event} is over: you finished in place {place}.",
        "vi": "{event} đã kết thúc: bạn xếp hạng {place}.",
    },
    "prize": {
        "zh-CN": "恭喜！您在{event}获得{prize}，请到服务台领取。",
        "en": "Congratulations! You won {prize} in {event}: collect it at the desk.",
        "vi": "Chúc mừng! Bạn đoạt {prize} tại {event}: nhận tại bàn tiếp đón.",
    },
    "notice": {
        "zh-CN": "{tournament}裁判长通知：{text}",
        "en": "{tournament}, from the tournament director: {text}",
        "vi": "{tournament}, thông báo của tổng trọng tài: {text}",
    },
}

SEATS = {"zh-CN": {"N": "北", "E": "东", "S": "南", "W": "西"},
         "en": {"N": "North", "E": "East", "S": "South", "W": "West"},
         "vi": {"N": "Bắc", "E": "Đông", "S": "Nam", "W": "Tây"}}

LANGS = ("zh-CN", "en", "vi")

# An appeal's outcome as the appellant reads it (domain/appeal.py's outcomes)
OUTCOMES = {"zh-CN": {"upheld": "申诉成立", "rejected": "申诉驳回"},
            "en": {"upheld": "upheld", "rejected": "rejected"},
            "vi": {"upheld": "được chấp nhận", "rejected": "bị bác"}}


def language(lang: str | None) -> str:
    """One of LANGS: "zh", "zh-Hans", "vi-VN" fold to theirs; anything else reads Chinese."""
    lang = (lang or "").lower()
    return "en" if lang.startswith("en") else "vi" if lang.startswith("vi") else "zh-CN"


def render(kind: str, lang: str, params: dict[str, str]) -> str:
    return TEXTS[kind][language(lang)].format(**{p: params.get(p, "") for p in PARAMS[kind]})


def ordered(kind: str, params: dict[str, str]) -> list[str]:
    """The parameters in the order the approved template numbers them ({1}, {2} … at Tencent Cloud)."""
    return [params.get(p, "") for p in PARAMS[kind]]


def named(kind: str, params: dict[str, str]) -> dict[str, str]:
    """The parameters by name (Aliyun's ${event}, ${link} …), only those the template has."""
    return {p: params.get(p, "") for p in PARAMS[kind]}
