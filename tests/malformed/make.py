#!/usr/bin/env python3
"""Writes the malformed-input corpus (issue 17 item 6) next to this script.

Each input is a small hostile variation of one well-formed session
(fixtures/sessions/linear-tools/session.jsonl), scenario or case. The expected outcome of every
command on every input lives in cases.toml, checked by crates/cli/tests/cli/malformed.rs.
Re-run after changing a variation: `python3 tests/malformed/make.py` (deterministic output).
"""
import json
import os
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BASE = (ROOT / "fixtures/sessions/linear-tools/session.jsonl").read_bytes()
LINES = BASE.rstrip(b"\n").split(b"\n")


def write(name, data):
    path = HERE / "inputs" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def session(lines):
    return b"\n".join(lines) + b"\n"


def obj(i):
    return json.loads(LINES[i])


def dump(o):
    return json.dumps(o, separators=(",", ":"), ensure_ascii=False).encode()


# --- sessions -----------------------------------------------------------------------------
write("sessions/empty.jsonl", b"")
write("sessions/blank-lines.jsonl", b"\n\n  \n")
write("sessions/header-only.jsonl", session(LINES[:1]))
write("sessions/no-header.jsonl", session(LINES[1:]))
hdr = obj(0)
hdr["version"] = 99
write("sessions/future-version.jsonl", session([dump(hdr)] + LINES[1:]))
hdr = obj(0)
hdr["type"] = "sesion"
write("sessions/header-wrong-type.jsonl", session([dump(hdr)] + LINES[1:]))
write("sessions/header-not-object.jsonl", session([b"[1,2,3]"] + LINES[1:]))
# the last line cut in the middle, as a crash during a write leaves it
write("sessions/truncated-last-line.jsonl", session(LINES[:-1]) + LINES[-1][: len(LINES[-1]) // 2])
# a middle line cut (Pi's loader skips a line JSON.parse rejects)
write("sessions/truncated-middle-line.jsonl",
      session(LINES[:5] + [LINES[5][: len(LINES[5]) // 2]] + LINES[6:]))
# invalid UTF-8 inside a message string
write("sessions/invalid-utf8.jsonl",
      session(LINES[:4] + [LINES[4].replace(b"List the files", b"List \xff\xfe files")] + LINES[5:]))
# a NUL byte between lines and one raw inside a string
write("sessions/nul-byte.jsonl",
      session(LINES[:4] + [LINES[4].replace(b"List the files", b"List \x00 files")] + LINES[5:]))
write("sessions/bom.jsonl", b"\xef\xbb\xbf" + BASE)
write("sessions/crlf.jsonl", BASE.replace(b"\n", b"\r\n"))
# content nested far deeper than any parser should recurse
deep = obj(4)
deep["message"]["content"] = "PLACEHOLDER"
text = dump(deep).replace(b'"PLACEHOLDER"', b"[" * 100000 + b"]" * 100000)
write("sessions/deep-nesting.jsonl", session(LINES[:4] + [text] + LINES[5:]))
# a parent cycle: 00000003 -> 00000004 -> 00000003
a = obj(3)
a["parentId"] = "00000004"
write("sessions/parent-cycle.jsonl", session(LINES[:3] + [dump(a), LINES[4]]))
# the same id twice
dup = obj(6)
dup["id"] = "00000005"
write("sessions/duplicate-id.jsonl", session(LINES[:6] + [dump(dup)] + LINES[7:]))
# a parent that does not exist
orphan = obj(4)
orphan["parentId"] = "no-such-entry"
write("sessions/missing-parent.jsonl", session(LINES[:4] + [dump(orphan)] + LINES[5:]))
# numbers beyond the double range and wrong types in usage
huge = LINES[5].replace(b'"input":1450', b'"input":1e400')
write("sessions/huge-number.jsonl", session(LINES[:5] + [huge] + LINES[6:]))
wrong = obj(5)
wrong["message"]["usage"] = "lots"
wrong["message"]["content"] = 42
write("sessions/wrong-types.jsonl", session(LINES[:5] + [dump(wrong)] + LINES[6:]))
write("sessions/binary-garbage.jsonl", bytes((i * 37 + 11) % 256 for i in range(4096)))
write("sessions/not-json.jsonl", b"this is not a session\nat all\n")
write("sessions/no-trailing-newline.jsonl", BASE.rstrip(b"\n"))

# --- scenarios ----------------------------------------------------------------------------
SCN = b'format = "forge-replay-scenario"\nversion = 1\ntools = ["read"]\n'
STEP = b'\n[[step]]\nuser = "hi"\n'
write("scenarios/not-toml.toml", b"name = \"x\nsteps = [\n")
write("scenarios/escaping-name.toml", SCN + b'name = "../../outside"\nmodel = "anthropic/claude-opus-4-8"\n' + STEP)
write("scenarios/unknown-key.toml", SCN + b'name = "unknown-key"\nmodel = "anthropic/claude-opus-4-8"\nfrobnicate = 1\n' + STEP)
write("scenarios/unknown-model.toml", SCN + b'name = "unknown-model"\nmodel = "anthropic/no-such-model"\n' + STEP
      + b'\n[[step]]\nassistant.text = "hello"\n')
write("scenarios/invalid-utf8.toml", SCN + b'name = "bad-\xff"\n')

# --- assemble cases -----------------------------------------------------------------------
write("cases/not-json.case.json", b"{\"model\": ")
write("cases/not-object.case.json", b"[]")
write("cases/no-model.case.json", b'{"context":{"messages":[]}}')
write("cases/unknown-model.case.json",
      b'{"model":{"provider":"anthropic","id":"no-such-model"},"context":{"messages":[]}}')

# --- payloads for diff --------------------------------------------------------------------
write("payloads/truncated.json", b'{"model":"x","messages":[')
write("payloads/ok.json", b'{"model":"x","messages":[]}')

# --- paths that are not files -------------------------------------------------------------
d = HERE / "inputs/sessions/a-directory.jsonl"
d.mkdir(exist_ok=True)
(d / ".gitkeep").write_bytes(b"")
for a, b in (("loop-a.jsonl", "loop-b.jsonl"), ("loop-b.jsonl", "loop-a.jsonl")):
    link = HERE / "inputs/sessions" / a
    if not link.is_symlink():
        os.symlink(b, link)
