"""Domain errors with stable codes; the one place where codes meet HTTP statuses.

Pure Python: the engine, services and adapters raise these; api/ turns them into responses.
"""
from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """Base of every error a client may see. `code` is stable and documented in api.md."""

    code = "invalid_request"
    status = 400
    default_message = "The request is not valid."

    def __init__(self, message: str | None = None, details: Any = None):
        self.message = message or self.default_message
        self.details = details
        super().__init__(self.message)

    def to_body(self) -> dict:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details is not None:
            body["details"] = self.details
        return body


class InvalidRequest(DomainError):
    code, status, default_message = "invalid_request", 400, "The request is not valid."


class Unauthorized(DomainError):
    code, status, default_message = "unauthorized", 401, "Sign-in required: a valid token is missing."


class Forbidden(DomainError):
    code, status, default_message = "forbidden", 403, "You may not do this."


class NotFound(DomainError):
    code, status, default_message = "not_found", 404, "Not found."


class PayloadTooLarge(DomainError):
    code, status, default_message = "payload_too_large", 413, "The request body is too large."


class UnsupportedMediaType(DomainError):
    code, status, default_message = "unsupported_media_type", 415, "Send JSON (Content-Type: application/json)."


class Conflict(DomainError):
    code, status, default_message = "conflict", 409, "The request conflicts with the current state."


class EventFull(Conflict):
    code, default_message = "event_full", "The event is full."


class DuplicateEntry(Conflict):
    code, default_message = "duplicate_entry", "This entry already exists."


class VersionConflict(Conflict):
    code, default_message = "version_conflict", "Someone else changed this first; reload and try again."


class AlreadyConfirmed(Conflict):
    code, default_message = "already_confirmed", "This has already been confirmed."


class RoundOpen(Conflict):
    code, default_message = "round_open", "The previous round is still open."


class CapacityBelowTaken(Conflict):
    """An edit may not take the capacity below the places already taken (confirmed + held): lower it after
    withdrawals, or keep it."""
    code, default_message = "capacity_below_taken", "The capacity would be below the places already taken."


class LockedOnceEntries(Conflict):
    """The game and the entry kind decide every entry's roster and fee: once an entry exists they stay."""
    code, default_message = "locked_once_entries", "The game and the entry kind cannot change once entries exist."


class LockedOnceDrawn(Conflict):
    """A stage already drawn keeps its format and scoring method: its rounds were made and scored by them."""
    code, default_message = "locked_once_drawn", "A stage already drawn keeps its format and scoring."


class EventFinished(Conflict):
    """Every stage is played out: there is no round left to draw (the console shows results and prizes)."""
    code, default_message = "event_finished", "Every stage of this event is finished."


class TournamentNotFinished(Conflict):
    """A player's erasure waits for the end of every tournament it is still in (api.md v1.3 "Players")."""
    code, default_message = "tournament_not_finished", "An entry is in a tournament not yet finished."


class ClockState(Conflict):
    """The round clock cannot do that now (pause a paused clock, start a started one, run a closed round's)."""
    code, default_message = "clock_state", "The round clock cannot do that now."


class IdempotencyConflict(Conflict):
    code, default_message = "idempotency_conflict", "This Idempotency-Key was used with a different request."


class TableStarted(Conflict):
    code, default_message = "table_started", "A result was entered at this table: its pairing can no longer change."


class LateEntryClosed(Conflict):
    code, default_message = "late_entry_closed", "Late entries are closed for this event."


class RuleViolation(DomainError):
    code, status, default_message = "rule_violation", 422, "This breaks a rule of the event."


class RegistrationClosed(RuleViolation):
    code, default_message = "registration_closed", "Registration is not open."


class NotEligible(RuleViolation):
    code, default_message = "not_eligible", "This entry is not eligible for the event."


class InvalidResult(RuleViolation):
    code, default_message = "invalid_result", "The result is not possible."


class InvalidTribute(InvalidResult):
    """Seed 004 / rules.md §9: a deal's tribute (贡牌) must follow the previous deal's finishing order — a 双下 makes
    a double tribute (双贡), any other order a single one (单贡); refused (抗贡) is always allowed; the first deal
    has none. Details: deal, given, expected, reason (first_deal / after_double_down / after_single)."""
    code, default_message = "invalid_tribute", "The tribute does not follow the previous deal's finishing order."


class PlayOn(InvalidResult):
    """Tractor (seed 003): "1.5小时结束时打平的则继续进行，直到一方领先" — a time-up result while level is refused."""
    code, default_message = "play_on", "The two pairs are level: play on until one leads."


class TieBreakRequired(InvalidResult):
    """A knockout team match whose two rooms gained the same levels needs its extra deal's winner (rules.md §1:
    a knockout match must produce a winner)."""
    code, default_message = "tie_break_required", "Both teams gained the same levels: enter the extra deal's winner."


class LineupMismatch(RuleViolation):
    """A room's players are not the lineup the team announced (seed 000: a change needs the chief referee)."""
    code, default_message = "lineup_mismatch", "The players named are not the team's lineup for this room."


class LineupMissing(RuleViolation):
    """A room's result from a team's phone for a team that announced no lineup and named no players."""
    code, default_message = "lineup_missing", "This team announced no lineup: name the members who played."


class PlayersConsentRequired(RuleViolation):
    """Seed 000: "双人赛必须两名运动员均同意，方可提出申诉" — a pairs event's appeal needs both players' agreement."""
    code, default_message = ("players_consent_required", "双人赛申诉须两名队员均同意 · In a pairs event an appeal "
                             "needs both players' agreement: send \"players_agreed\": [0, 1].")


class CaptainConsentRequired(RuleViolation):
    """Seed 000: "集体赛必须经领队同意…方可提出申诉" — a team event's appeal needs the captain's consent."""
    code, default_message = "captain_consent_required", "In a team event an appeal needs the team captain's consent."


class LineupClosed(RuleViolation):
    """Seed 000: lineups by 15 / 5 minutes before the start (by seat choice); later, or a change, only by the referee."""
    code, default_message = "lineup_closed", "The lineup deadline has passed: the chief referee records changes."


class SubstitutionNotAllowed(RuleViolation):
    code, default_message = "substitution_not_allowed", "This event does not allow this substitution."


class NoValidPairing(RuleViolation):
    code, default_message = "no_valid_pairing", "No valid pairing exists."


class InvalidConfig(RuleViolation):
    code, default_message = "invalid_config", "The event configuration contradicts itself."


class InvalidCharacters(DomainError):
    """Control characters or bidi overrides in a text field (a BEL breaks spreadsheets, an RLO turns a name
    around on screen): refused, naming the field."""
    code, status, default_message = "invalid_characters", 422, "A field holds characters that are not allowed."


class RateLimited(DomainError):
    code, status, default_message = "rate_limited", 429, "Too many requests; wait a moment."
    retry_after = 60


class ServiceUnavailable(DomainError):
    """The store did not answer in time (or is down): the client may try again after `retry_after` seconds."""
    code, status = "service_unavailable", 503
    default_message = "服务暂时不可用，请稍后重试 · The service is briefly unavailable: try again in a few seconds."
    retry_after = 3


class Misconfigured(DomainError):
    code, status, default_message = "misconfigured", 500, "The server is not configured for this."


class PaymentError(DomainError):
    code, status, default_message = "payment_unavailable", 502, "The payment provider could not be reached."


class PaymentStateRefused(Conflict):
    code, default_message = "payment_state", "The payment is not in a state that allows this."


class RosterSize(RuleViolation):
    code, default_message = "roster_size", "The roster has the wrong number of members for this event."


class MixedPairGenders(RuleViolation):
    code, default_message = ("mixed_pair_genders", "混合双人赛须由一名男选手和一名女选手组成（填写每人性别） · "
                             "A mixed pair is one man and one woman: give each member's gender.")


class MixedTeamGenders(RuleViolation):
    code, default_message = ("mixed_team_genders", "混合团体赛须填写每名队员性别，且至少两名男选手、两名女选手 · "
                             "A mixed team gives every member's gender and has at least two men and two women.")


class MixedLineup(RuleViolation):
    code, default_message = ("mixed_lineup", "混合团体赛上场阵容须为一对男选手（坐东西）和一对女选手（坐南北） · "
                             "A mixed team's lineup is a men's pair (E–W) and a women's pair (N–S).")


class PhoneRequired(RuleViolation):
    code, default_message = "phone_required", "Give at least one contact phone number."


class SamePersonTwice(RuleViolation):
    """Issue 39: one phone in two places of one roster is one person taking two places."""
    code, default_message = "same_person_twice", "One person cannot take two places in one entry (the same phone twice)."


class NotHoldingPlace(Conflict):
    code, default_message = "not_holding_place", "This entry does not hold a place."


class RoundNotComplete(Conflict):
    """A round closes only with every table confirmed or forfeit: the answer names the open tables."""
    code, default_message = "round_not_complete", "Some tables of this round are not finished."


class NotConfirmed(Conflict):
    code, default_message = "not_confirmed", "This entry is not confirmed yet (payment outstanding?)."


class EntryClosed(Conflict):
    code, default_message = "entry_closed", "This entry is cancelled or withdrawn."


class ChangesClosed(RuleViolation):
    code, default_message = "changes_closed", "Changes are closed: the registration deadline has passed."


class InvalidSignature(DomainError):
    code, status, default_message = "invalid_signature", 400, "The webhook signature is not valid."


class StaleSignature(DomainError):
    code, status, default_message = "stale_signature", 400, "The webhook is too old (replayed?)."


class Disputed(Conflict):
    code, default_message = "disputed", "This result is disputed: the referee settles it."


class CorrectionWindowClosed(RuleViolation):
    code, default_message = "correction_window_closed", "The correction window has closed: an override with a reason is needed."


class NorthSouthEnters(Forbidden):
    """rules.md §8 (seed 000, electronic entry): "由南、北方负责…录入，东、西方负责核对"."""
    code, default_message = "north_south_enters", "At this table N–S enter the result and E–W confirm it."


class ArrivalInFuture(InvalidRequest):
    """An arrival time after now (15:37 typed at 15:11) is a typing slip, not lateness."""
    code, status, default_message = "arrival_in_future", 422, "The arrival time is later than now."


class AppealWindowClosed(RuleViolation):
    code, default_message = "appeal_window_closed", "The appeal window has closed."


class SessionMismatch(Conflict):
    code, default_message = "session_mismatch", "The Checkout session does not belong to this payment."


class AccountMismatch(Conflict):
    """A verified notification names a merchant account that is not the paying tournament's organiser's (issue 40)."""
    code, default_message = "account_mismatch", "The notification is for another merchant account than this payment's."


class PaymentAccountTaken(Conflict):
    """Another organiser has connected this merchant account id (issue 40): one chamber's money, one organiser."""
    code = "payment_account_taken"
    default_message = "该商户号已被其他主办方接入 · This merchant account is connected by another organiser."


class PaymentAccountInvalid(DomainError):
    """An organiser's payment account as sent cannot be used: `details` name the field and why (mode, missing,
    format, not_in_mode, cannot_clear, cleared_and_sent)."""
    code, status, default_message = "payment_account_invalid", 400, "The payment account is not valid."


class AmountMismatch(RuleViolation):
    code, default_message = "amount_mismatch", "The amount paid does not match the entry."


class PaymentsOff(Conflict):
    code, default_message = "online_payment_off", "Online payment is off for this platform: pay at the desk."


class ProviderNotOffered(PaymentsOff):
    # The catalogs' "online_payment_off" wording (pay another way / at the desk); details name what is offered.
    default_message = "This payment provider is not offered for this tournament."


class WeChatCodeInvalid(DomainError):
    code, status, default_message = "wechat_code_invalid", 400, "WeChat did not accept this authorisation code: authorise again."


class WeChatSignInOff(Conflict):
    """No official account here to ask WeChat who the player is (the platform's WeChat Pay AppID + AppSecret)."""
    code, default_message = "wechat_sign_in_off", "Signing in with WeChat is not available here: sign in by phone."


class WeChatPhoneRequired(Conflict):
    """A WeChat openid not yet bound to a player: the details carry a short-lived `binding_ticket` to send with a
    phone and its SMS code, once (api.md v1.3 "Players"). Not `phone_required` (a registration's contact rule)."""
    code, default_message = "wechat_phone_required", "Confirm your phone once to sign in with WeChat."


class BindingTicketInvalid(DomainError):
    code, status, default_message = ("binding_ticket_invalid", 400,
                                     "The WeChat sign-in has expired or was used: sign in with WeChat again.")


class WeChatAlreadyBound(Conflict):
    """One openid, one player, for good: this WeChat is another phone's, or this phone is another WeChat's."""
    code, default_message = "wechat_already_bound", "This WeChat or this phone is already bound to another."


class CheckoutInProgress(Conflict):
    # The catalogs' generic "conflict" wording, until the front end words a code of its own.
    default_message = "The previous checkout may still be paid; try again in a minute."


class ImportUnreadable(DomainError):
    """The secretariat's file is not a sheet we can read (not XLSX, not CSV, empty, XML with a DTD)."""
    code, status, default_message = "import_unreadable", 422, "The file is neither an XLSX nor a CSV sheet."


class ImportTooLarge(DomainError):
    """The secretariat's file is past one of the import's bounds (services/sheet_reader.py); `details.limit` names it."""
    code, status, default_message = "import_too_large", 422, "The file is larger than an import may be."


class ImportColumnsMissing(DomainError):
    """The sheet's header lacks a column the event needs (`details.missing`: the column keys)."""
    code, status, default_message = "import_columns_missing", 400, "The sheet lacks columns this event needs."


class RegistrationTooLarge(InvalidRequest):
    """One registration's events and phones would take more than one transaction's actions (DynamoDB: 100), and the
    registration is all or nothing: it is refused whole (`details.events`), to be made in two."""
    code = "registration_too_large"
    default_message = "一次报名的项目和手机号太多，请分两次报名 · Too many events and phones for one registration: register them in two."


class ManageLinkPhoneLimited(RateLimited):
    """A manage link was resent to this phone a moment ago, or too often today (services/manage_links.py): per
    phone, whichever entry asked, so a phone on many entries is not sent one per entry."""
    code = "manage_link_phone_limited"
    default_message = "这个手机号刚收到过管理链接，请稍后再试 · This phone was just sent a manage link: try again later."


class NoContact(Conflict):
    """The desk asked to resend a manage link to an entry that has no phone (or its contact data was erased)."""
    code, default_message = "no_contact", "这个报名没有手机号，无法发送 · This entry has no phone to send the link to."
