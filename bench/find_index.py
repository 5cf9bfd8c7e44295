"""Find-my-table's index shards against the one find.json they replace (issue 43): at --entries pair entries (a team
name and two members, folded and with pinyin initials as services/hall.py makes a row's keys), the shard count,
rows and bytes a shard (raw and gzip-compressed: CloudFront compresses), the time to build them, and what a phone
fetches when its player types a name: the shards of each prefix of the name as it is typed (two characters on;
a heavy gram's shard and the next), each once — beside the old find.json every phone fetched whole.

Two fields: `mix`, names as a national day's (60 % Chinese names, 30 % Vietnamese with diacritics, 10 % Latin,
a few with a character outside the BMP), and `bench`, bench/big_event.py's (第123队, 甲123, 乙123: digits only,
the worst case for grams).

    .venv/bin/python bench/find_index.py --entries 10000 100000
"""
from __future__ import annotations

import argparse
import gzip
import random
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈"
GIVEN = "伟芳娜秀英敏静丽强磊军洋勇艳杰娟涛明超秀兰霞平刚桂英华玉萍红娥玲芬燕彬斌宇浩凯鹏鑫晨辰阳林峰建国志"
VI_SUR = ["Nguyễn"] * 38 + ["Trần"] * 11 + ["Lê"] * 9 + ["Phạm"] * 7 + ["Hoàng", "Huỳnh", "Phan", "Vũ", "Võ", "Đặng",
                                                                    "Bùi", "Đỗ", "Hồ", "Ngô", "Dương", "Lý"] * 3
VI_MID = ["Văn", "Thị", "Minh", "Hoàng", "Đức", "Ngọc", "Thanh", "Quốc", "Hữu", "Thu"]
VI_GIVEN = ["An", "Anh", "Bình", "Châu", "Cường", "Dũng", "Đạt", "Giang", "Hà", "Hải", "Hạnh", "Hiếu", "Hoa", "Hùng",
            "Huy", "Hương", "Khánh", "Lan", "Linh", "Long", "Mai", "Nam", "Nga", "Nhung", "Phong", "Phúc", "Quân",
            "Sơn", "Tâm", "Thảo", "Thắng", "Trang", "Trung", "Tuấn", "Tùng", "Vân", "Việt", "Yến"]
LATIN_FIRST = ["John", "Mary", "David", "Anna", "Peter", "Maria", "James", "Sophie", "Lucas", "Emma", "Noah",
               "Olivia", "José", "Zoë", "Chloé", "Ahmed", "Ivan", "Sven"]
LATIN_LAST = ["Smith", "Brown", "Müller", "García", "Rossi", "Dubois", "Khan", "Tan", "Lim", "Wong", "Novak",
              "Silva", "Jensen", "Kowalski", "O'Neil"]
ASTRAL = "𠮷𡈼𠀋𪚥"


def mix_name(rng: random.Random) -> str:
    x = rng.random()
    if x < 0.6:
        given = "".join(rng.choice(GIVEN) for _ in range(rng.choice((1, 2, 2))))
        if rng.random() < 0.01:
            given = rng.choice(ASTRAL) + given[1:]
        return rng.choice(SURNAMES) + given
    if x < 0.9:
        return f"{rng.choice(VI_SUR)} {rng.choice(VI_MID)} {rng.choice(VI_GIVEN)}"
    return f"{rng.choice(LATIN_FIRST)} {rng.choice(LATIN_LAST)}"


def field(entries: int, names: str, seed: int = 1) -> list[list]:
    """find_hits' rows of one event's round at `entries` pair entries (keys as services/hall.py makes them)."""
    from chalicelib.services.hall import fold, initials
    rng = random.Random(seed)
    rows = []
    for i in range(entries):
        if names == "bench":
            name, members = f"第{i + 1}队", [f"甲{i}", f"乙{i}"]
        else:
            members = [mix_name(rng), mix_name(rng)]
            name = members[0] + ("队" if members[0][0] in SURNAMES else " team")
        q = "|".join([fold(name), *[fold(m) for m in members], initials(name), *[initials(m) for m in members]])
        table = i // 2 + 1
        rows.append([q, name, members, 0, table, "NS" if i % 2 == 0 else "EW",
                     f"01JEVENT0000000000000000AB/round-3-{(table - 1) // 250 + 1}.html"])
    return rows


def old_find_json(rows: list[list]) -> bytes:
    """The find.json of one language (before issue 43: every row, worded in the page)."""
    import json
    words = ["", "掼蛋公开赛 · 第3轮", "第 {n} 桌", "座位 南北", "座位 东西"]
    hits = [[r[0], r[1], "、".join(r[2]), words[1], words[2].replace("{n}", str(r[4])),
             words[3] if r[5] == "NS" else words[4], r[6]] for r in rows]
    return json.dumps({"hits": hits}, ensure_ascii=False, separators=(",", ":")).encode()


def fetched(query: str, parts: list[dict]) -> list[int]:
    """The shards find.js fetches while `query` (folded) is typed a character at a time."""
    from chalicelib.publish.find_index import fnv1a
    got: list[int] = []
    for end in range(2, len(query) + 1):
        q = query[:end]
        for n in range(2, len(q) + 1):
            k = fnv1a(q[:n]) % len(parts)
            if k not in got:
                got.append(k)
            if not (parts[k]["heavy"].get(q[:n]) and n < len(q)):
                break
    return got


def measure(entries: int, names: str = "mix", lookups: int = 2000) -> dict:
    """The shards of a field and what a phone fetches (a sample of `lookups` players each typing one of their
    entry's names in full), beside the old find.json."""
    from chalicelib.publish.find_index import search_keys, shard_texts, shards
    rows = field(entries, names)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0, c0 = time.perf_counter(), time.process_time()
    parts = shards(rows)
    raw, gz = [], []
    for text in shard_texts(rows, parts):   # as the publisher writes them: one at a time
        body = text.encode()
        raw.append(len(body))
        gz.append(len(gzip.compress(body, 6)))
    build_s, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024   # KiB on Linux
    sizes = sorted(len(p["rows"]) for p in parts)
    rng = random.Random(2)
    per_phone_gz, per_phone_n = [], []
    for i in rng.sample(range(entries), min(lookups, entries)):
        keys = search_keys(rows[i][0])
        got = fetched(keys[rng.randrange(3)], parts)   # the team's name or a member's, as typed
        per_phone_n.append(len(got))
        per_phone_gz.append(sum(gz[k] for k in got))
    old = old_find_json(rows)

    def pct(xs, p):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(len(xs) * p))]
    return {"entries": entries, "names": names, "shards": len(parts), "build_s": build_s, "build_cpu": build_cpu,
            "grown_mib": grown,
            "rows_median": statistics.median(sizes), "rows_p95": pct(sizes, 0.95), "rows_max": sizes[-1],
            "raw_median": statistics.median(raw), "gz_median": statistics.median(gz), "gz_p95": pct(gz, 0.95),
            "gz_max": max(gz), "raw_total": sum(raw),
            "phone_requests": statistics.mean(per_phone_n), "phone_gz": statistics.mean(per_phone_gz),
            "phone_gz_p95": pct(per_phone_gz, 0.95),
            "old_raw": len(old), "old_gz": len(gzip.compress(old, 6))}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--entries", type=int, nargs="+", default=[10000, 100000])
    ap.add_argument("--names", nargs="+", default=["mix", "bench"])
    args = ap.parse_args(argv)
    for n in args.entries:
        for names in args.names:
            m = measure(n, names)
            print(f"{n:>7,} entries ({names:5}): {m['shards']:,} shards (built and gzip-compressed in {m['build_s']:.1f} s, "
                  f"{m['build_cpu']:.1f} s CPU, peak memory +{m['grown_mib']:.0f} MiB; "
                  f"{m['raw_total'] / 2**20:.0f} MiB in all), rows a shard median {m['rows_median']:.0f} / p95 "
                  f"{m['rows_p95']} / max {m['rows_max']}; gzip a shard median {m['gz_median'] / 1024:.1f} KiB / p95 "
                  f"{m['gz_p95'] / 1024:.1f} / max {m['gz_max'] / 1024:.1f}; a phone fetches {m['phone_requests']:.1f} "
                  f"shards, {m['phone_gz'] / 1024:.1f} KiB gzip (p95 {m['phone_gz_p95'] / 1024:.1f}) — the reference, "
                  f"find.json: {m['old_raw'] / 2**20:.1f} MiB raw, {m['old_gz'] / 2**20:.2f} MiB gzip, every phone")


if __name__ == "__main__":
    main()
