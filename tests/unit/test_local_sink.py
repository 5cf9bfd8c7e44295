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


def test_the_writer_process_writes_every_file_and_says_when_one_failed(tmp_path):
    import pytest
    sink = LocalSink(str(tmp_path / "site"))
    writer = sink.writer()
    big = bytes(range(256)) * 16384   # 4 MiB: more than the pipe holds at once
    bodies = {f"t/T1/E1/entry-{k}.html": f"<p>{k} 选手</p>".encode() for k in range(500)}
    for key, body in bodies.items():
        writer.write(key, body)
    writer.write("en/t/T1/find.json", big)
    writer.close()
    assert all(sink.read(k) == b for k, b in bodies.items()) and sink.read("en/t/T1/find.json") == big
    assert not [p for p in (tmp_path / "site").rglob(".*.tmp")]

    (tmp_path / "site" / "blocked").write_bytes(b"a file where a folder must go")
    writer = sink.writer()
    writer.write("blocked/index.html", b"x")
    writer.write("t/T1/after.html", b"y")   # read and dropped once a write failed
    with pytest.raises(OSError, match="writing the published files failed"):
        writer.close()

    writer = sink.writer()   # a publish that failed: the writer is stopped, nothing raised for it
    writer.write("t/T1/half.html", b"z")
    writer.close(abandon=True)
    writer.close()


def test_a_folder_deleted_under_a_running_server_is_made_again(tmp_path):
    """The settings' sink lives as long as the server (publish/sinks.default_sink): it remembers the folders it
    made, and the site folder may be wiped meanwhile."""
    import shutil

    from chalicelib.publish.sinks import LocalSink
    sink = LocalSink(str(tmp_path / "site"))
    sink.write("t/x/index.html", b"one")
    shutil.rmtree(tmp_path / "site")
    sink.write("t/x/index.html", b"two")
    assert sink.read("t/x/index.html") == b"two"
