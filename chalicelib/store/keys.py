"""Every DynamoDB key is built here and nowhere else."""
from __future__ import annotations


def tournament(tid: str) -> dict:
    return {"PK": f"TOURN#{tid}", "SK": "META"}


def tournament_partition(tid: str) -> str:
    return f"TOURN#{tid}"


def event(tid: str, eid: str) -> dict:
    return {"PK": f"TOURN#{tid}", "SK": f"EVENT#{eid}"}


EVENT_PREFIX = "EVENT#"


def event_counters(eid: str) -> dict:
    return {"PK": f"EVENT#{eid}", "SK": "COUNTERS"}


def counter_shard(eid: str, k: int) -> dict:
    """Shard k of an event's counters: shard 0 is the counters item itself (an event below the sharding threshold
    has only that one); shards 1… have partition keys of their own, so a rush spreads over DynamoDB partitions and
    not only over items (store/counters.py)."""
    return event_counters(eid) if k == 0 else {"PK": f"EVENT#{eid}#C{k:02d}", "SK": "COUNTERS"}


def event_partition(eid: str) -> str:
    return f"EVENT#{eid}"


def entry(eid: str, entry_id: str) -> dict:
    return {"PK": f"EVENT#{eid}", "SK": f"ENTRY#{entry_id}"}


ENTRY_PREFIX = "ENTRY#"


# Each entry's roster row (store/entries.py roster_attr: what a draw or close reads of it) is copied, in the entry's own
# transaction, into one of ROSTER_CHUNKS chunk items by a hash of its id, chunk c under partition key c % ROSTER_KEYS of
# the event's own (issue 43: a draw read 100,000 whole entry items on the event's key, ~27,600 read units; the copies
# are ~15 MB over 16 keys). 4,096 chunks keep one at ~4 KB at 100,000 entries (a roster change rewrites ~4 write
# units; a chunk reaches 100 KB near 2.5 M entries), and a registration rush's writers rarely meet on one chunk.
ROSTER_KEYS = 16
ROSTER_CHUNKS = 4096
ROSTER_MARK = "#L"   # not "#R" (a round's table keys) nor "#C" (the counters' shards)


def roster_chunk(eid: str, entry_id: str) -> dict:
    import zlib
    chunk = zlib.crc32(entry_id.encode()) % ROSTER_CHUNKS
    return {"PK": f"EVENT#{eid}{ROSTER_MARK}{chunk % ROSTER_KEYS:02d}", "SK": f"ROSTER#{chunk:04d}"}


def roster_partitions(eid: str) -> list[str]:
    return [f"EVENT#{eid}{ROSTER_MARK}{k:02d}" for k in range(ROSTER_KEYS)]


def entry_pointer(entry_id: str) -> dict:
    return {"PK": f"ENTRYID#{entry_id}", "SK": "META"}


def waitlist_index(eid: str, position: str) -> dict:
    return {"GSI1PK": f"WAITLIST#{eid}", "GSI1SK": position}


def waitlist_partition(eid: str) -> str:
    return f"WAITLIST#{eid}"


def hold_index(expires_iso: str, entry_id: str) -> dict:
    return {"GSI1PK": "HOLDS", "GSI1SK": f"{expires_iso}#{entry_id}"}


HOLDS_PARTITION = "HOLDS"


def organiser(oid: str) -> dict:
    return {"PK": f"ORG#{oid}", "SK": "META"}


def organiser_token(token_hash: str) -> dict:
    return {"PK": f"ORGTOKEN#{token_hash}", "SK": "META"}


def organiser_token_record(oid: str, token_id: str) -> dict:
    """The listed record of one token (label, parent, when); the pointer above is what authenticates."""
    return {"PK": f"ORG#{oid}", "SK": f"TOKEN#{token_id}"}


def staff(tid: str, staff_id: str) -> dict:
    return {"PK": f"TOURN#{tid}", "SK": f"STAFF#{staff_id}"}


STAFF_PREFIX = "STAFF#"


def staff_token(token_hash: str) -> dict:
    """A staff member's sign-in token, by hash: which tournament and which member."""
    return {"PK": f"STAFFTOKEN#{token_hash}", "SK": "META"}


def login(login_hash: str) -> dict:
    """An organiser account's password hash, under the keyed hash of its sign-in name (a phone number or an
    e-mail, normalised: services/organisers.py), so no phone number or e-mail is a key in clear."""
    return {"PK": f"LOGIN#{login_hash}", "SK": "META"}


def appeal(eid: str, appeal_id: str) -> dict:
    return {"PK": f"EVENT#{eid}", "SK": f"APPEAL#{appeal_id}"}


def appeal_pointer(appeal_id: str) -> dict:
    """Finds an appeal's event from its id alone (routes /appeals/{id}/…)."""
    return {"PK": f"APPEAL#{appeal_id}", "SK": "META"}


APPEAL_PREFIX = "APPEAL#"


TABLE_CODE_MARK, TABLE_CODE_SK = "TABLECODE#", "META"


def table_code(code_hash: str) -> dict:
    """Finds a table from its printed code alone (bare score.html, issue 39): the code's keyed hash → event, round,
    table. A code is derived from its place, so an item left by a crashed draw still points to the right table."""
    return {"PK": TABLE_CODE_MARK + code_hash, "SK": TABLE_CODE_SK}


def publish_lease(tid: str, scope: str = "") -> dict:
    """One per event of a tournament (`scope`: the event id) and one for its tournament-wide pages (scope ""):
    who is publishing them now, and how many publishes were asked for (issue 43: events publish side by side)."""
    return {"PK": f"PUBLISH#{tid}", "SK": f"LEASE#{scope}" if scope else "LEASE"}


def publish_leases_of(tid: str) -> str:
    return f"PUBLISH#{tid}"


def rate_counter(scope: str, key: str, window: int) -> dict:
    """Attempts in one time window (e.g. wrong table codes a minute); expires with the window."""
    return {"PK": f"RATE#{scope}#{key}", "SK": f"W#{window}"}


def organiser_tournament(oid: str, tid: str) -> dict:
    return {"PK": f"ORG#{oid}", "SK": f"TOURN#{tid}"}


def organiser_partition(oid: str) -> str:
    return f"ORG#{oid}"


def registration(reg_id: str) -> dict:
    return {"PK": f"REG#{reg_id}", "SK": "META"}


def person_in_event(eid: str, phone_hash: str) -> dict:
    """One person (by phone) once per event: written with the entry, removed when it is cancelled."""
    return {"PK": f"EVENT#{eid}", "SK": f"PERSON#{phone_hash}"}


def idempotency(scope: str, key: str) -> dict:
    return {"PK": f"IDEM#{scope}#{key}", "SK": "META"}


def payment(payment_id: str) -> dict:
    return {"PK": f"PAYMENT#{payment_id}", "SK": "META"}


def stripe_event(stripe_event_id: str) -> dict:
    return {"PK": f"STRIPEEVT#{stripe_event_id}", "SK": "META"}


def round_(eid: str, stage: int, number: int) -> dict:
    return {"PK": f"EVENT#{eid}", "SK": f"ROUND#{stage}#{number:03d}"}


# A round's tables live packed, TABLES_PER_ITEM to an item, each table in its own two attributes (its document and
# its version, what a result's write conditions on): a 5,000-table draw writes 250 items and a publish reads 2,250
# for nine rounds, not 45,000 (DynamoDB Local's cost, and AWS's request count, are per item). Twenty Guandan tables
# with results are about 12 KB; the size test of a 10,000-entry event keeps the largest item under 100 KB.
TABLES_PER_ITEM = 20


def table_pack_no(table_no: int) -> int:
    return table_no // TABLES_PER_ITEM


TABLE_PACK_MARK = "#TABLES#"   # between a round's sort key and a pack's number
WIDE = ":"                     # sorts right after "9": a number past its key's width (below)


def sortable(n: int, width: int) -> str:
    """A number in a sort key that sorts by value however large: `width` digits as stored since the packs began,
    and past them ":" and twelve digits (after every `width`-digit key, so stored keys need no migration). A
    100,000-entry round has 1,250 packs of twenty tables: "1000" would sort before "999"."""
    return f"{n:0{width}d}" if n < 10 ** width else f"{WIDE}{n:012d}"


def unsortable(text: str) -> int | None:
    digits = text[1:] if text.startswith(WIDE) else text
    return int(digits) if digits.isdigit() else None


# A round's packs and table items are not under the event's partition key but spread over ROUND_TABLE_KEYS keys of
# the round's own, pack k under key k % ROUND_TABLE_KEYS (issue 43: one partition takes 1,000 write units and 3,000
# read units a second; a 100,000-entry draw writes ~25,000 units of packs, a close reads as many). Sized from
# bench/cost.py: at 100,000 entries the draw's burst is ~1,600 write units a key (under 2 s at a partition's rate)
# and the phones' opens ~100 read units/s a key. A round of few packs uses only its first keys (round_table_keys);
# the key follows from the table's number alone, so reading one table costs what it did.
ROUND_TABLE_KEYS = 16
ROUND_TABLES_MARK = "#R"


def round_tables_partition(eid: str, stage: int, number: int, pack_no: int) -> str:
    return f"EVENT#{eid}{ROUND_TABLES_MARK}{stage}#{number:03d}#T{pack_no % ROUND_TABLE_KEYS:02d}"


def round_table_keys(tables: int) -> int:
    """How many of its partition keys a round of `tables` tables (numbered from 0 or 1) uses."""
    return max(1, min(ROUND_TABLE_KEYS, table_pack_no(tables) + 1))


def round_tables_partitions(eid: str, stage: int, number: int, used: int = ROUND_TABLE_KEYS) -> list[str]:
    return [round_tables_partition(eid, stage, number, k) for k in range(used)]


def event_of_partition(pk: str) -> str:
    """The event id of an event's partition key or of one of its rounds' table keys."""
    return pk.split("#")[1]


def table_pack(eid: str, stage: int, number: int, pack_no: int) -> dict:
    """The item holding tables pack_no × TABLES_PER_ITEM … + TABLES_PER_ITEM - 1 of a round."""
    return {"PK": round_tables_partition(eid, stage, number, pack_no),
            "SK": f"ROUND#{stage}#{number:03d}{TABLE_PACK_MARK}{sortable(pack_no, 3)}"}


def pack_no_of(sk: str) -> int | None:
    """The pack number of a table pack's sort key (or of a table item's, keyed after its pack); None for any other."""
    _, mark, k = sk.partition(TABLE_PACK_MARK)
    return unsortable(k.split("#", 1)[0]) if mark else None


# What is written to a table after its draw (a result, a confirmation, a pairing edit) goes to an item of that
# table alone, keyed right after its pack (a round's query and its ranges cut at packs read them together), and wins
# over the pack's copy: a result writes ~1 KB instead of its pack's 10–16 KB, and twenty results of one pack touch
# twenty items. A pack is written by the draw only, its tables at version 0 (store/rounds.py says why that matters).
def table_item(eid: str, stage: int, number: int, table_no: int) -> dict:
    return {"PK": round_tables_partition(eid, stage, number, table_pack_no(table_no)),
            "SK": f"ROUND#{stage}#{number:03d}{TABLE_PACK_MARK}{sortable(table_pack_no(table_no), 3)}#{sortable(table_no, 4)}"}


# A round's `rev` (moved by every write to one of its tables: publishing's and the running totals' cache key) is the
# round head's own `rev` (moved by pairing edits) plus REV_SHARDS counters beside it, a table's writes adding to the
# counter of its pack modulo REV_SHARDS: results of one round do not all add to one item.
REV_SHARDS = 16
REV_MARK = "#REV#"


def round_rev(eid: str, stage: int, number: int, table_no: int) -> dict:
    return {"PK": f"EVENT#{eid}", "SK": f"ROUND#{stage}#{number:03d}{REV_MARK}{table_pack_no(table_no) % REV_SHARDS:02d}"}


def round_rev_shards(eid: str, stage: int, number: int) -> list[dict]:
    return [{"PK": f"EVENT#{eid}", "SK": f"ROUND#{stage}#{number:03d}{REV_MARK}{k:02d}"} for k in range(REV_SHARDS)]


def legacy_tables_key(key: dict, eid: str) -> dict:
    """A pack's or table item's key as stored before its round's keys of their own: under the event's partition key
    (store/migrations.spread_round_tables moves them; a read finds them there until it has run)."""
    return {"PK": event_partition(eid), "SK": key["SK"]}


def table_attrs(table_no: int) -> tuple[str, str]:
    """The names of a table's document and version attributes in its pack."""
    return f"t{table_no:04d}", f"v{table_no:04d}"


def audit(eid: str, ulid: str) -> dict:
    return {"PK": f"EVENT#{eid}", "SK": f"AUDIT#{ulid}"}


def audit_head(eid: str) -> dict:
    """The head of the event's audit chain (store/audit_chain.py): its last record's seq and hash. Not under
    AUDIT#: a query of the records does not read it."""
    return {"PK": f"EVENT#{eid}", "SK": AUDIT_HEAD}


def audit_lane_head(eid: str, lane: int) -> dict:
    """The head of one lane of the event's audit chains (format 2, store/audit_chain.py). Beside the one-chain
    head: a query of AUDIT_HEAD's prefix reads every head of the event at once."""
    return {"PK": f"EVENT#{eid}", "SK": f"{AUDIT_HEAD}#{lane:02d}"}


AUDIT_HEAD = "AUDITHEAD"


def event_state(eid: str) -> dict:
    return {"PK": f"EVENT#{eid}", "SK": "STATE"}


def round_prefix(stage: int, number: int) -> str:
    return f"ROUND#{stage}#{number:03d}"


ROUND_PREFIX = "ROUND#"
AUDIT_PREFIX = "AUDIT#"


def round_clock(eid: str, number: int) -> dict:
    """The round clock the director runs (issue 28): beside the round, its own item (pairing edits rewrite the round)."""
    return {"PK": f"EVENT#{eid}", "SK": f"CLOCK#{number:03d}"}


def announcement(tid: str, ann_id: str) -> dict:
    return {"PK": f"TOURN#{tid}", "SK": f"ANN#{ann_id}"}


ANNOUNCEMENT_PREFIX = "ANN#"


def announcement_pointer(ann_id: str) -> dict:
    """DELETE /announcements/{id} names no tournament: the pointer does."""
    return {"PK": f"ANNID#{ann_id}", "SK": "META"}


def round_totals(eid: str, stage: int) -> dict:
    """A stage's per-entry running totals as of its last closed round (services/running_totals.py)."""
    return {"PK": f"EVENT#{eid}", "SK": f"TOTALS#{stage}"}


# -- rankings across events (issue 42; store/rankings.py says what each item holds)
RANKING_EVENT_PREFIX, RANKING_PLAYER_PREFIX, RANKING_TABLE_PREFIX = "EV#", "P#", "TABLE#"


def ranking_partition(rid: str) -> str:
    return f"RANKING#{rid}"


def ranking(rid: str) -> dict:
    return {"PK": f"RANKING#{rid}", "SK": "META"}


def ranking_event(rid: str, eid: str) -> dict:
    return {"PK": f"RANKING#{rid}", "SK": f"{RANKING_EVENT_PREFIX}{eid}"}


def ranking_player(rid: str, pid: str) -> dict:
    return {"PK": f"RANKING#{rid}", "SK": f"{RANKING_PLAYER_PREFIX}{pid}"}


def ranking_table(rid: str, eid: str, stage: int, n: int, t: int) -> dict:
    return {"PK": f"RANKING#{rid}", "SK": f"{RANKING_TABLE_PREFIX}{eid}#{stage}#{n:03d}#{t:04d}"}


RANKING_TABLES_PER_PACK = 200
RANKING_PACK_PREFIX = "TABLES#"


def ranking_table_pack(rid: str, eid: str, stage: int, n: int, t: int) -> dict:
    """A rebuild's marks of a round's tables, 200 to an item (a 5,000-table round stays under 100 KB a pack)."""
    return {"PK": f"RANKING#{rid}",
            "SK": f"{RANKING_PACK_PREFIX}{eid}#{stage}#{n:03d}#{t // RANKING_TABLES_PER_PACK:03d}"}


def organiser_ranking(oid: str, rid: str) -> dict:
    return {"PK": f"ORG#{oid}", "SK": f"RANKING#{rid}"}


def event_ranking(eid: str, rid: str) -> dict:
    """Which rankings count an event (the result hook, the seeding by rating)."""
    return {"PK": f"EVENTRANK#{eid}", "SK": f"R#{rid}"}


def event_rankings_partition(eid: str) -> str:
    return f"EVENTRANK#{eid}"


def player_ranking_index(pid: str, rid: str) -> dict:
    """On a ranking's player item: the index keys that list a player's rankings (GSI1; no item of its own)."""
    return {"GSI1PK": f"PLAYER#{pid}", "GSI1SK": f"R#{rid}"}


def player_rankings_partition(pid: str) -> str:
    return f"PLAYER#{pid}"

# -- messages' outbox (chalicelib/messages): a partition per tournament (never the tournament's own: its reads
# stay small), the message's cause and channel as its sort key, so a cause can be written only once
def message(tid: str | None, cause_key: str) -> dict:
    return {"PK": f"MSGS#{tid or '-'}", "SK": f"MSG#{cause_key}"}


def message_by_provider(provider: str, provider_id: str) -> dict:
    """A sent message found by the provider's id, for its delivery report."""
    return {"PK": f"MSGREF#{provider}#{provider_id}", "SK": "META"}


def messages_partition(tid: str | None) -> str:
    return f"MSGS#{tid or '-'}"


MESSAGE_PREFIX = "MSG#"
OUTBOX_PARTITION = "OUTBOX"


def outbox_index(due_iso: str, tid: str | None, cause_key: str) -> dict:
    """Sparse: only a message still to be tried is in it, by when it is due."""
    return {"GSI1PK": OUTBOX_PARTITION, "GSI1SK": f"{due_iso}#{tid or '-'}#{cause_key}"}


# -- players (api.md v1.3 "Players"): keyed by the phone's keyed hash (installation.lookup_hash), never the phone
def player(phone_hash: str) -> dict:
    return {"PK": f"PLAYER#{phone_hash}", "SK": "META"}


def player_code(phone_hash: str) -> dict:
    """The phone's current sign-in code (one at a time: a new one replaces it)."""
    return {"PK": f"PLAYER#{phone_hash}", "SK": "CODE"}


def player_session(token_hash: str) -> dict:
    return {"PK": f"PSESSION#{token_hash}", "SK": "META"}


def wechat_binding(openid_hash: str) -> dict:
    """Which player (phone hash) a WeChat openid at the platform's official account signs in as: one, for good."""
    return {"PK": f"WECHAT#{openid_hash}", "SK": "BINDING"}


def wechat_ticket(ticket_hash: str) -> dict:
    """A WeChat sign-in waiting for its phone (10 minutes, used once): holds the openid, never answered."""
    return {"PK": f"WXTICKET#{ticket_hash}", "SK": "META"}


def payment_account(oid: str, provider: str) -> dict:
    """An organiser's merchant account at one provider (issue 40): under the organiser, one per provider."""
    return {"PK": f"ORG#{oid}", "SK": f"PAYACCT#{provider}"}


def payment_account_claim(provider: str, account_id: str) -> dict:
    """Which organiser holds a merchant account id at a provider (a sub_mchid, an app id, an acct_…): one at a
    time, so no organiser can point its tournaments' orders and refunds at another chamber's merchant."""
    return {"PK": f"PAYCLAIM#{provider}#{account_id}", "SK": "CLAIM"}


def retired_payment_account(oid: str, provider: str, account_id: str) -> dict:
    """An account the organiser replaced or deleted, kept sealed for the orders opened on it (their refunds,
    queries and notifications): one per account id a payment may name."""
    return {"PK": f"ORG#{oid}", "SK": f"PAYRETIRED#{provider}#{account_id}"}


# -- retention (issue 41 item 4): a tournament whose participants' contact data is still held, in the sparse GSI1
# partition RETENTION by the day it is due for erasure (the tournament's META item carries it until erased)
RETENTION_PARTITION = "RETENTION"


def retention_index(erase_on: str, tid: str) -> dict:
    return {"GSI1PK": RETENTION_PARTITION, "GSI1SK": f"{erase_on}#{tid}"}
# -- every registration and entry by the phone it was made with (api.md v1.3 "Players": "我的"), across tournaments
# and organisers; the phone as its keyed hash (installation.phone_hash), the same as the player's
def phone_partition(phone_hash: str) -> str:
    return f"PHONE#{phone_hash}"


PHONE_ENTRY_PREFIX, PHONE_REG_PREFIX = "ENTRY#", "REG#"


def phone_entry(phone_hash: str, entry_id: str) -> dict:
    return {"PK": f"PHONE#{phone_hash}", "SK": f"{PHONE_ENTRY_PREFIX}{entry_id}"}


def phone_registration(phone_hash: str, reg_id: str) -> dict:
    """A day's registration by its contact's phone (the contact may play in none of its entries)."""
    return {"PK": f"PHONE#{phone_hash}", "SK": f"{PHONE_REG_PREFIX}{reg_id}"}
