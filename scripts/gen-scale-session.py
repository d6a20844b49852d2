#!/usr/bin/env python3
"""Writes a generated Pi 0.87.1 session of a given shape and size (for scripts/bench-scale.sh).

Usage: gen-scale-session.py SHAPE ENTRIES OUT.jsonl
  chain   one alternating user/assistant chain (every assistant entry is a request whose
          context is the whole chain before it)
  comb    one leaf per node: a user/assistant chain where every chain entry also has a second
          child, an alternative assistant reply that is a leaf (ENTRIES/2 leaves)
  small   the chain with small entries (about 90 bytes, no timestamps or usage details, as in
          the issue-17 file: 1,000,000 entries are about 90 MB)
  compacting
          the chain, compacted as Pi compacts when the context fills: every 400 entries a
          `compaction` entry keeps the last 20 (`firstKeptEntryId`) and carries the system
          message, so every request's context stays under about 420 messages however long the
          session
  forest  a wide tree of bounded depth: conversations of 40 to 80 entries that restart from an
          entry of the first 20 (Pi's /tree navigation); the paths stay short however large the
          file, so the work of `replay`, `context`, `capabilities` and `cache explain` on the
          default leaf is bounded while the file grows
Deterministic: the same arguments always write the same bytes.
"""
import sys

shape, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]

TOOLS = ('[{"name":"read","description":"Read a file.","parameters":{"type":"object",'
         '"required":["path"],"properties":{"path":{"type":"string"}}}},'
         '{"name":"bash","description":"Run a command.","parameters":{"type":"object",'
         '"required":["command"],"properties":{"command":{"type":"string"}}}}]')
BASE_MS = 1769932800000


def ts(k):
    ms = BASE_MS + k * 1000
    s, milli = divmod(ms, 1000)
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)) + f".{milli:03d}Z", ms


class W:
    def __init__(self, f):
        self.f, self.k = f, 0

    def entry(self, parent, body):
        self.k += 1
        eid = f"{self.k:08x}"
        iso, _ = ts(self.k)
        p = "null" if parent is None else f'"{parent}"'
        self.f.write(f'{{"type":"message","id":"{eid}","parentId":{p},"timestamp":"{iso}",'
                     f'"message":{body}}}\n')
        return eid

    def small(self, parent, body):
        """An entry without a timestamp (about 100 bytes with a short body)."""
        self.k += 1
        eid = f"{self.k:08x}"
        p = "null" if parent is None else f'"{parent}"'
        self.f.write(f'{{"type":"message","id":"{eid}","parentId":{p},"message":{body}}}\n')
        return eid

    def system(self, parent):
        _, ms = ts(self.k + 1)
        return self.entry(parent, '{"role":"system","content":"","sections":{"preamble":'
                          '"You are a careful coding assistant."},"timestamp":%d,'
                          '"toolsAdded":%s}' % (ms, TOOLS))

    def compaction(self, parent, kept):
        """A compaction keeping the path from entry id `kept`, carrying the system message."""
        self.k += 1
        eid = f"{self.k:08x}"
        iso, _ = ts(self.k)
        self.f.write(f'{{"type":"compaction","id":"{eid}","parentId":"{parent}","timestamp":"{iso}",'
                     f'"summary":"Summary of the work so far.","firstKeptEntryId":"{kept}",'
                     f'"tokensBefore":{40 * self.k},"systemMessage":{{"role":"system","content":"",'
                     f'"sections":{{"preamble":"You are a careful coding assistant."}},'
                     f'"toolsAdded":{TOOLS}}}}}\n')
        return eid

    def user(self, parent, i):
        _, ms = ts(self.k + 1)
        return self.entry(parent, '{"role":"user","content":[{"type":"text","text":'
                          '"Step %d: what does file %d do?"}],"timestamp":%d}' % (i, i, ms))

    def assistant(self, parent, i, alt=False):
        _, ms = ts(self.k + 1)
        text = f"Alternative {i}." if alt else f"File {i} defines f{i}; it returns {i}."
        cache = 300 * (i % 50)
        return self.entry(parent, '{"role":"assistant","content":[{"type":"text","text":"%s"}],'
                          '"api":"anthropic-messages","provider":"anthropic",'
                          '"model":"claude-opus-4-8","usage":{"input":%d,"output":12,'
                          '"cacheRead":%d,"cacheWrite":40,"totalTokens":%d,"cost":{"input":0,'
                          '"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},'
                          '"stopReason":"stop","timestamp":%d}'
                          % (text, 60, cache, 112 + cache, ms))


with open(out, "w") as f:
    f.write('{"type":"session","version":3,"id":"019c0001-0000-7000-8000-00000000beef",'
            '"timestamp":"2026-02-01T08:00:00.000Z","cwd":"/home/dev/project"}\n')
    w = W(f)
    if shape == "chain":
        cur = w.system(None)
        i = 1
        while w.k < n:
            cur = w.user(cur, i) if i % 2 else w.assistant(cur, i)
            i += 1
    elif shape == "compacting":
        cur = w.system(None)
        ids = [cur]
        i, since = 1, 0
        while w.k < n:
            since += 1
            if since >= 400 and i % 2:
                # Before a user message, so the kept part starts with one.
                cur = w.compaction(cur, ids[-20])
                since = 0
            else:
                cur = w.user(cur, i) if i % 2 else w.assistant(cur, i)
                i += 1
            ids.append(cur)
    elif shape == "comb":
        cur = w.system(None)
        i = 1
        while w.k < n:
            nxt = w.user(cur, i) if i % 2 else w.assistant(cur, i)
            if w.k < n:
                w.assistant(cur, i, alt=True)  # the leaf beside the chain entry
            cur = nxt
            i += 1
    elif shape == "small":
        small = w.small
        cur = w.system(None)
        i = 1
        while w.k < n:
            if i % 2:
                cur = small(cur, '{"role":"user","content":"q%d"}' % i)
            else:
                cur = small(cur, '{"role":"assistant","content":[{"type":"text","text":"a%d"}],'
                            '"model":"m","usage":{"input":9}}' % i)
            i += 1
    elif shape == "forest":
        # Small entries (about 100 bytes, no timestamps), as in a large real file.
        import random
        rng = random.Random(7)
        small = w.small

        def turn(parent, i):
            if i % 2:
                return small(parent, '{"role":"user","content":"q%d"}' % i)
            return small(parent, '{"role":"assistant","content":[{"type":"text","text":"a%d"}],'
                         '"provider":"anthropic","model":"claude-opus-4-8",'
                         '"usage":{"input":9,"cacheRead":%d}}' % (i, i % 7))

        trunk = [w.system(None)]
        for i in range(1, 20):
            trunk.append(turn(trunk[-1], i))
        i = 21
        while w.k < n:
            # Back to an assistant entry of the trunk, then a new conversation from there.
            cur = trunk[(rng.randrange(len(trunk) // 2) * 2 + 2) % len(trunk)]
            for _ in range(rng.randrange(40, 80)):
                if w.k >= n:
                    break
                cur = turn(cur, i)
                i += 1
            i += i % 2 == 0  # every conversation starts with a user message
    else:
        sys.exit(f"unknown shape {shape!r}")
