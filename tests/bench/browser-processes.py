#!/usr/bin/env python3
"""What one managed browser session costs in memory: a fresh daemon on its
own home and port, one fixture page open, a snapshot taken; then every
process under the daemon (keeper, browser, zygotes, GPU, network and other
utilities, renderers) with its --type / --utility-sub-type and its PSS
(/proc/PID/smaps_rollup), after a settle. Repeated N times (fresh daemon
each), median total per kind and overall.

usage: browser-processes.py WEBRIG_BIN FIXTURE_WEB_BIN [N] [--headed]
(WEBRIG_BROWSER picks the browser: a wrapper script that adds flags tries
them out.) Prints a markdown table. Run it on an idle machine; it kills only what it
started (its daemon and fixture server, by pid).
"""
import json, os, re, statistics, subprocess, sys, tempfile, time, socket

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def children():
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = open(f"/proc/{d}/stat").read()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(d))
    return kids

def tree(root):
    kids, out, todo = children(), [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out

def kind(pid):
    try:
        argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
    except OSError:
        return None
    argv = [a.decode(errors="replace") for a in argv if a]
    if not argv:
        return None
    if len(argv) == 1 and " --" in argv[0]:
        # Chromium's children rewrite their title into one string.
        argv = argv[0].split(" ")
    exe = os.path.basename(argv[0])
    t = next((a.split("=", 1)[1] for a in argv if a.startswith("--type=")), None)
    sub = next((a.split("=", 1)[1] for a in argv if a.startswith("--utility-sub-type=")), None)
    if "chrom" not in exe and t is None:
        return "keeper" if exe == "exe" else exe
    if t is None:
        return "browser"
    if t == "utility" and sub:
        return "utility:" + sub.split(".")[-1]
    if t == "zygote" and "--no-zygote-sandbox" in argv:
        return "zygote (unsandboxed)"
    return t

def mem(pid):
    """(PSS, private dirty) in kB. PSS divides the binary's pages among
    every Chromium on the machine, so it moves with them; private dirty
    (heaps, what this browser wrote) does not."""
    pss = uss = 0
    try:
        for line in open(f"/proc/{pid}/smaps_rollup"):
            if line.startswith("Pss:"):
                pss = int(line.split()[1])
            elif line.startswith("Private_Dirty:"):
                uss += int(line.split()[1])
    except OSError:
        pass
    return pss, uss

def other_chromiums(mine):
    n = 0
    for d in os.listdir("/proc"):
        if d.isdigit() and int(d) not in mine:
            try:
                if b"chrom" in open(f"/proc/{d}/cmdline", "rb").read(200):
                    n += 1
            except OSError:
                pass
    return n

others = []

def once(webrig, base, headed):
    home = tempfile.mkdtemp(prefix="webrig-mem-")
    port = free_port()
    env = dict(os.environ, WEBRIG_HOME=home, WEBRIG_PORT=str(port))
    env.pop("WEBRIG_SESSION", None)
    def cli(*a):
        return subprocess.run([webrig, "--json", *a], env=env, capture_output=True, text=True)
    if headed:
        r = cli("launch", "--headed")
        assert json.loads(r.stdout)["ok"], r.stdout + r.stderr
    r = cli("goto", base + "form.html")
    assert json.loads(r.stdout)["ok"], r.stdout + r.stderr
    r = cli("snapshot")
    assert json.loads(r.stdout)["ok"], r.stdout + r.stderr
    daemon = json.loads(cli("daemon", "status").stdout)["result"]["pid"]
    time.sleep(float(os.environ.get("SETTLE", "5")))  # let late services start
    rows = {}
    mine = tree(daemon)
    for p in mine:
        k = kind(p)
        if k is None:
            continue
        if p == daemon:
            k = "daemon"
        n, kb, ukb = rows.get(k, (0, 0, 0))
        pss, uss = mem(p)
        rows[k] = (n + 1, kb + pss, ukb + uss)
    others.append(other_chromiums(set(mine)))
    cli("daemon", "stop")
    time.sleep(1)
    subprocess.run(["rm", "-rf", home])
    return rows

def main():
    args = sys.argv[1:]
    headed = "--headed" in args
    args = [a for a in args if a != "--headed"]
    webrig, fixture = args[0], args[1]
    n = int(args[2]) if len(args) > 2 else 3
    fx = subprocess.Popen([fixture], stdout=subprocess.PIPE, text=True)
    try:
        base = fx.stdout.readline().strip()
        runs = [once(webrig, base, headed) for _ in range(n)]
    finally:
        fx.kill()
    kinds = sorted({k for r in runs for k in r})
    print("| process | count | PSS MB | private dirty MB |")
    print("|---|---:|---:|---:|")
    browser = lambda r, i: sum(v[i] for k, v in r.items() if k not in ("daemon", "keeper"))
    med = lambda xs: statistics.median(xs) / 1024
    for k in kinds:
        col = lambda i: [r.get(k, (0, 0, 0))[i] for r in runs]
        print(f"| {k} | {statistics.median(col(0)):g} | {med(col(1)):.1f} | {med(col(2)):.1f} |")
    pss_t = [browser(r, 1) for r in runs]
    uss_t = [browser(r, 2) for r in runs]
    procs = [sum(v[0] for k, v in r.items() if k not in ("daemon", "keeper")) for r in runs]
    print(f"| **browser total** (all but daemon and keeper) | **{statistics.median(procs):g}** | **{med(pss_t):.1f}** | **{med(uss_t):.1f}** |")
    print(f"medians of {n} runs; PSS per run:", ", ".join(f"{t/1024:.1f}" for t in pss_t),
          "; private dirty per run:", ", ".join(f"{t/1024:.1f}" for t in uss_t),
          "; other Chromium processes on the machine:", others)

main()
