"""The local folder sink (make run's site, the benches): what it writes is read back whole, a rewrite replaces the
file in one step, and no temporary file is left beside the pages."""
from chalicelib.publish.sinks import LocalSink


def test_local_sink_writes_folders_rewrites_and_leaves_no_temporary_files(tmp_path):
    sink = LocalSink(str(tmp_path / "site"))
    sink.write("t/T1/index.html", "首页".encode())
    sink.write("t/T1/E1/entry-A.html", b"<p>a</p>")
    sink.write("feed.json", b"")
    big = bytes(range(256)) * 4096   # 1 MiB: more than one os.write may take
    sink.write("en/t/T1/find.json", big)
    sink.write("t/T1/index.html", b"again")
    assert sink.read("t/T1/index.html") == b"again"
    assert sink.read("t/T1/E1/entry-A.html") == b"<p>a</p>"
    assert sink.read("feed.json") == b""
    assert sink.read("en/t/T1/find.json") == big
    assert sink.read("t/T1/missing.html") is None
    names = sorted(str(p.relative_to(tmp_path / "site")) for p in (tmp_path / "site").rglob("*") if p.is_file())
    assert names == ["en/t/T1/find.json", "feed.json", "t/T1/E1/entry-A.html", "t/T1/index.html"]
