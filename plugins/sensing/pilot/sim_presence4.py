# Pilot (issue 22, presence round 4; not shipped as code): on VALIDATION rooms only, (1) what starts and what keeps each
# false-presence episode of the empty rooms (fan, cat, door), per link and rule; (2) why each missed still second is
# missed; (3) what keeps a room present after its person walked out; (4) a replay of room-level candidate rules
# (pilot/presence4-protocol.md). The 12 test rooms of `npm run eval:sim` are never read.
# Dumps of pilot/sim_pets_dump.mjs of the build (rooms 0-29: the rooms of presence round 3; 30-41: fresh seeds
# 72030-72041 added here):
#   node plugins/sensing/pilot/sim_pets_dump.mjs 15 > /tmp/p4/dumpA.jsonl
#   FROM=15 node plugins/sensing/pilot/sim_pets_dump.mjs 30 > /tmp/p4/dumpB.jsonl
#   FROM=30 node plugins/sensing/pilot/sim_pets_dump.mjs 42 > /tmp/p4/dumpC.jsonl
#   python3 plugins/sensing/pilot/sim_presence4.py /tmp/p4/dump[ABC].jsonl [episodes misses leaving lines grid grid2 steadyfan]
# After the choice was built, the same dumps of the new build (/tmp/p4/new[ABC].jsonl) with `built`. Dumps now carry
# the fingerprint of the build that made them (`fp`); dumps of different builds are refused.
import json, sys, itertools
from collections import defaultdict, Counter
import numpy as np

files = [a for a in sys.argv[1:] if a.endswith('.jsonl')]
parts = [a for a in sys.argv[1:] if not a.endswith('.jsonl')] or ['episodes', 'misses', 'leaving', 'lines', 'grid']
sess = defaultdict(lambda: defaultdict(dict))
FINGERPRINTS = set()
for f in files:
    for l in open(f):
        r = json.loads(l)
        r.pop('prof', None)
        sess[(r['kind'], r['room'])][r['link']][r['s']] = r
        FINGERPRINTS.add(r.get('fp'))

def source(r):
    """What truly moves in a link second (the simulator's truth)."""
    if r['pp']:
        return 'person moving' if r['v'] >= 0.2 else 'person still'
    if r['door']:
        return 'door'
    if r['cat']:
        return 'cat'
    return 'nothing'

def fan_lines(rpm, blades, harmonics=30):
    """A fan's blade-pass harmonics as the 10-Hz grid aliases them (bpm)."""
    if not rpm:
        return []
    out = []
    for m in range(1, harmonics + 1):
        f = m * rpm * blades / 60
        out.append(abs(f - 10 * round(f / 10)) * 60)
    return out

def is_fan_line(r):
    return r['eb'] is not None and any(abs(r['eb'] - a) <= 0.5 for a in fan_lines(r['fr'], r['fb'] or 3))

# ---------- one link, as src/signal/presence.ts with the shipped config, plus per-link candidates ----------
def latch(secs, rule):
    """Per second: (present, basis) of one link. rule {}: the shipped rules. Per-link candidates:
    constW/constTol/constShare: a rate whose peaks sat within constTol bpm of it in constShare of the last constW s is a
    machine's line (a fan's alias keeps one exact rate; breath wanders): it neither starts nor keeps presence nor counts
    for the steady keep."""
    out = {}
    mov = []; br = []
    present = False; last = -1e9
    peaks = []
    raw = []  # every moving second of the link, for the persistent-mover rule
    pw = rule.get('pW'); started_by_breath = False
    n = max(secs) + 1 if secs else 0
    cw = rule.get('constW')
    for s in range(n):
        r = secs.get(s)
        if r is None:
            out[s] = (present, 'gap'); continue
        moving = r['mo'] >= 0.5
        raw.append(1 if moving else 0)
        if pw and moving and sum(raw[-pw - 1:-1]) >= rule['pShare'] * pw:
            moving = False  # a persistent mover: a link that has read moving most of the time is no one arriving
        ratio = r['ps'] / max(r['pf'], 1e-9)
        warm = s < rule.get('warm', 30)
        big = moving and (warm or ratio >= 2)
        breathing = r['b']
        machine = False
        if cw and r['eb'] is not None:
            w = [e for (t, e) in peaks if t > s - cw]
            machine = len(w) >= rule['constShare'] * cw and sum(1 for e in w if abs(e - r['eb']) <= rule['constTol']) >= rule['constShare'] * cw
            if machine:
                breathing = False
        if r['eb'] is not None:
            peaks.append((s, r['eb']))
        mov.append(1 if big else 0); br.append(1 if breathing else 0)
        recent = sum(mov[-10:]); breathed = sum(br[-30:])
        steady = False
        if present and not machine:
            w = [e for (t, e) in peaks if t > s - 120]
            if len(w) >= 60:
                med = float(np.median(w))
                steady = sum(1 for e in w if abs(e - med) <= 2) >= 60
        basis = 'none'
        if big and recent >= 4:
            basis = 'entry'
        elif present and moving:
            basis = 'moving'
        elif breathing and (present or breathed >= 20):
            basis = 'breathing'
        elif present and s - last <= rule.get('hold', 300):
            basis = 'hold'
        elif steady:
            basis = 'steady'
        if rule.get('dropMachine') and machine and present and started_by_breath and basis in ('hold', 'moving'):
            basis = 'none'  # the presence rested on a machine's line
        if moving or basis == 'entry':
            last = s
        if basis == 'breathing' and not present:
            started_by_breath = True
        if basis == 'entry':
            started_by_breath = False
        present = basis != 'none'
        out[s] = (present, basis)
    return out

def room_presence(links, lat, rule):
    """Room-level presence per second from the links' latches. Room candidates:
    agree: in a room with >= 2 links, the room's presence starts only when at least 2 links show evidence (a moving
      second or a rate) within the last `agree` s; one link's claim alone is a distractor (a cat, a wandering link);
    leaveQuiet: after a walk (an entry-sized run on some link) the room drops its presence once every link has been
      quiet (no moving second, no rate) for leaveQuiet s; it starts again only by a new start."""
    names = list(links)
    n = max(max(secs) for secs in links.values()) + 1
    multi = len(names) >= 2
    ag = rule.get('agree'); lq = rule.get('leaveQuiet')
    out = []
    was = False
    ev_last = {l: -1e9 for l in names}
    quiet_since = 0; walked = -1e9
    for s in range(n):
        anyp = any(lat[l].get(s, (False,))[0] for l in names)
        active = False
        for l in names:
            r = links[l].get(s)
            if r and (r['mo'] >= 0.5 or r['b']):
                ev_last[l] = s
            if r and r['mo'] >= 0.5 or (r and r['b']):
                active = True
            if lat[l].get(s, (False, ''))[1] == 'entry':
                walked = s
        if active:
            quiet_since = s + 1
        p = anyp
        if p and not was and ag and multi:
            p = sum(1 for l in names if s - ev_last[l] <= ag) >= 2
        if p and was and lq and walked > -1e9 and s - quiet_since >= lq and quiet_since > walked:
            p = False
            walked = -1e9
        if p and not was and lq and walked == -1e9 and not any(lat[l].get(s, (False, ''))[1] in ('entry', 'breathing') for l in names):
            p = False  # after a leave-drop, only a fresh entry or breathing start brings the room back
        out.append(p)
        was = p
    return out

LATCH_CACHE = {}

def run(rule, rooms):
    res = {}
    key = tuple(rule.get(k) for k in ('constW', 'constTol', 'constShare', 'dropMachine', 'pW', 'pShare', 'warm'))
    for (kind, room), links in sorted(sess.items()):
        if room not in rooms:
            continue
        if (key, kind, room) not in LATCH_CACHE:
            LATCH_CACHE[(key, kind, room)] = {l: latch(secs, rule) for l, secs in links.items()}
        lat = LATCH_CACHE[(key, kind, room)]
        fused = room_presence(links, lat, rule)
        n = len(fused)
        truth = [any(links[l].get(s, {}).get('pp', False) for l in links) for s in range(n)]
        res[(kind, room)] = (lat, fused, truth)
    return res

def score(rule, rooms):
    still = [0, 0]; eps = 0; empty_s = 0; pres_s = 0; after = []
    for (kind, room), (lat, fused, truth) in run(rule, rooms).items():
        n = len(fused)
        if kind == 'still':
            for s in range(10, n):
                if truth[s]:
                    still[1] += 1; still[0] += fused[s]
        elif kind == 'empty':
            was = False
            for s in range(10, n):
                empty_s += 1; pres_s += fused[s]
                if fused[s] and not was:
                    eps += 1
                was = fused[s]
        elif kind == 'leave':
            left = max(s for s in range(n) if truth[s]) + 1
            after.append(sum(1 for s in range(left + 5, n) if fused[s]))
    after.sort()
    return dict(recall=round(still[0] / max(1, still[1]), 4), perDay=round(eps / max(1, empty_s) * 86400, 1), episodes=eps, emptyShare=round(pres_s / max(1, empty_s), 3), afterMedian=after[len(after) // 2] if after else None)

# The dumps must come from one build (pilot/sim_pets_dump.mjs stamps each row with `fp`; older dumps have none).
print('built code of the dumps (fp):', sorted(map(str, FINGERPRINTS)))
if len(FINGERPRINTS) > 1 and not __import__('os').environ.get('ALLOW_MIXED_DUMPS'):
    sys.exit('dumps of different builds mixed: re-dump them all (or ALLOW_MIXED_DUMPS=1 to read them anyway)')
ALL = sorted(set(r for (_, r) in sess))
VAL6 = [r for r in ALL if r < 6]
print('rooms:', ALL[0], '-', ALL[-1], f'({len(ALL)})')
agree = total = 0
for (kind, room), links in sess.items():
    for l, secs in links.items():
        lat = latch(secs, {})
        for s, r in secs.items():
            total += 1; agree += lat[s][0] == r['p']
print(f'replay of the shipped rules matches {agree}/{total} link seconds of the built code')
print('shipped, rooms 0-5 (`--validation`):', score({}, VAL6))
print('shipped, all rooms:', score({}, ALL))

if 'episodes' in parts:
    print('\n== 1. empty rooms: each false-presence episode (shipped rules): start second, links present at the start with their basis and what truly moved there, then what kept it (link-seconds by basis), its length')
    starts = Counter(); keeps = Counter()
    for (kind, room), (lat, fused, truth) in run({}, ALL).items():
        if kind != 'empty':
            continue
        links = sess[(kind, room)]
        n = len(fused); s = 10
        while s < n:
            if not fused[s] or (s > 10 and fused[s - 1]):
                s += 1; continue
            e = s
            while e < n and fused[e]:
                e += 1
            who = []
            for l in links:
                if lat[l].get(s, (False,))[0]:
                    r = links[l][s]
                    b = lat[l][s][1]
                    # what started this link: its own first present second's basis
                    t0 = s
                    while t0 > 0 and lat[l].get(t0 - 1, (False,))[0]:
                        t0 -= 1
                    b0 = lat[l][t0][1]; r0 = links[l][t0]
                    src = source(r0)
                    line = f" line {r0['eb']:.1f}{' fan' if is_fan_line(r0) else ''}" if b0 == 'breathing' and r0['eb'] is not None else ''
                    who.append(f"{l} started {t0} by {b0} ({src}{line}, size {r0['ps'] / max(r0['pf'], 1e-9):.1f})")
                    starts[(b0, src if b0 == 'entry' else ('fan line' if is_fan_line(r0) else 'other line') if b0 == 'breathing' else src)] += 1
            kept = Counter()
            for t in range(s, e):
                for l in links:
                    if lat[l].get(t, (False,))[0]:
                        kept[lat[l][t][1]] += 1
            keeps.update(kept)
            fan = links[next(iter(links))][s]['fr']
            print(f'  room {room} ({len(links)} link{"s" if len(links) > 1 else ""}, fan {fan}): {s}-{e} ({e - s} s); {"; ".join(who)}; kept (link-s) {dict(kept)}')
            s = e
    print('  starts by (basis, what):', dict(starts))
    print('  link-seconds of the episodes by basis:', dict(keeps))
    # how often each link claims while the other link of a two-link room shows nothing
    print('\n   empty rooms, per link: share of seconds moving, share with a rate, share present; two-link rooms: share of a link\'s moving seconds with the other link moving within 5 s')
    for (kind, room), links in sorted(sess.items()):
        if kind != 'empty':
            continue
        names = list(links)
        for l in names:
            secs = links[l]
            ss = [s for s in secs if s >= 10]
            mv = [s for s in ss if secs[s]['mo'] >= 0.5]
            both = ''
            if len(names) == 2:
                o = links[[x for x in names if x != l][0]]
                both = f", other moving too {np.mean([any(o.get(t, {}).get('mo', 0) >= 0.5 for t in range(s - 5, s + 6)) for s in mv]) if mv else float('nan'):.2f}"
            print(f"    room {room} {l}: moving {len(mv) / len(ss):.2f}, rate {np.mean([secs[s]['b'] for s in ss]):.2f}, present {np.mean([secs[s]['p'] for s in ss]):.2f}{both}")

if 'misses' in parts:
    print('\n== 2. still rooms: missed seconds (shipped rules), per room: posture, links, when, the links\' basis just before, the peak against the truth')
    for (kind, room), (lat, fused, truth) in run({}, ALL).items():
        if kind != 'still':
            continue
        links = sess[(kind, room)]
        miss = [s for s in range(10, len(fused)) if truth[s] and not fused[s]]
        if not miss:
            continue
        first = miss[0]
        before = {l: lat[l].get(first - 1, (None, None))[1] for l in links}
        info = []
        for l, secs in links.items():
            e = [(secs[s]['eb'], secs[s]['eq'], secs[s]['tb']) for s in miss if s in secs and secs[s]['eb'] is not None]
            near = np.mean([abs(a - t) <= 2 for a, _, t in e]) if e else float('nan')
            q = np.median([b for _, b, _ in e]) if e else float('nan')
            mo = np.mean([secs[s]['mo'] >= 0.5 for s in miss if s in secs])
            info.append(f'{l}: peak within 2 bpm of the scripted rate {near:.2f}, peak/median {q:.1f}, moving {mo:.2f}')
        print(f"  room {room} {'lying' if room % 2 else 'sitting'}: {len(miss)} s missed from {first} (basis before {before}); {'; '.join(info)}")

if 'leaving' in parts:
    print('\n== 3. leaving sessions: seconds present after the person left (shipped), by the basis that held them')
    for (kind, room), (lat, fused, truth) in run({}, ALL).items():
        if kind != 'leave':
            continue
        links = sess[(kind, room)]
        n = len(fused)
        left = max(s for s in range(n) if truth[s]) + 1
        c = Counter()
        for s in range(left + 5, n):
            if fused[s]:
                c['+'.join(sorted(set(lat[l][s][1] for l in links if lat[l].get(s, (False,))[0])))] += 1
        quiet = next((s - left for s in range(left, n) if all(links[l].get(t, {}).get('mo', 0) < 0.5 and not links[l].get(t, {}).get('b') for l in links for t in range(s, min(n, s + 30)))), None)
        print(f"  room {room} ({len(links)} links, fan {links[next(iter(links))][left]['fr']}): {sum(c.values())} s present after; {dict(c)}; all links quiet for 30 s from {quiet} s after leaving")

if 'lines' in parts:
    print('\n== 4. how constant a line is: over the last W s, share of seconds whose spectrum peak is within T bpm of this second\'s rate (rated seconds only)')
    for W, T in ((120, 0.3), (120, 0.5), (60, 0.3), (180, 0.3)):
        groups = defaultdict(list)
        for (kind, room), links in sess.items():
            for l, secs in links.items():
                peaks = []
                for s in sorted(secs):
                    r = secs[s]
                    if r['b'] and s >= W:
                        w = [e for (t, e) in peaks if t > s - W]
                        share = sum(1 for e in w if abs(e - r['eb']) <= T) / W
                        key = 'still person' if r['pp'] else 'empty, fan line' if is_fan_line(r) else f'{"empty" if kind == "empty" else "after leaving"}, other line'
                        groups[key].append(share)
                    if r['eb'] is not None:
                        peaks.append((s, r['eb']))
        print(f'  W {W} s, T {T} bpm:', '; '.join(f'{k}: n {len(v)} q10/50/90 {np.percentile(v, [10, 50, 90]).round(2)}, >= 0.5 {np.mean(np.array(v) >= 0.5):.2f}, >= 0.7 {np.mean(np.array(v) >= 0.7):.2f}' for k, v in sorted(groups.items())))

GRID = dict(constW=[None, 60, 120, 180], constTol=[0.2, 0.3, 0.5], constShare=[0.5, 0.7], agree=[None, 5, 10, 30], leaveQuiet=[None, 30, 60, 120])
if 'grid' in parts:
    print('\n== 5. candidates (pilot/presence4-protocol.md)')
    rooms = [r for r in ALL if r in set(int(x) for x in (__import__('os').environ.get('ROOMS') or ','.join(map(str, ALL))).split(','))]
    shipped = score({}, rooms)
    print('  rooms', rooms[0], '-', rooms[-1], 'shipped', shipped)
    res = []
    for cw, ct, cs, ag, lq in itertools.product(*GRID.values()):
        if cw is None and (ct != 0.2 or cs != 0.5):
            continue
        rule = {k: v for k, v in dict(constW=cw, constTol=ct, constShare=cs, agree=ag, leaveQuiet=lq).items() if v is not None}
        if cw is None:
            rule.pop('constTol'); rule.pop('constShare')
        res.append((score(rule, rooms), rule))
    ok = [x for x in res if x[0]['recall'] >= shipped['recall'] - 0.005]
    ok.sort(key=lambda x: (x[0]['perDay'], x[0]['afterMedian'], len(x[1])))
    print(f'  {len(res)} candidates, {len(ok)} keep recall within 0.005; best by false presence, then after leaving:')
    for sc, r in ok[:12]:
        print('   ', sc, r)
    print('  each rule alone, best:')
    for key in ('constW', 'agree', 'leaveQuiet'):
        alone = [x for x in ok if key in x[1] and set(x[1]) - {key, 'constTol', 'constShare'} == set()]
        if alone:
            print('   ', alone[0][1], alone[0][0])
        else:
            print('   ', key, 'none keeps recall; best:', sorted([x for x in res if key in x[1] and set(x[1]) - {key, 'constTol', 'constShare'} == set()], key=lambda x: -x[0]['recall'])[0])

CHOSEN = {'constW': 120, 'constTol': 0.5, 'constShare': 0.5}
if 'built' in parts:
    # On dumps of the build with the choice shipped (/tmp/p4/new*.jsonl): the replay of the choice against the code's own presence.
    agree = total = 0
    for (kind, room), links in sess.items():
        for l, secs in links.items():
            lat = latch(secs, CHOSEN)
            for s, r in secs.items():
                total += 1; agree += lat[s][0] == r['p']
    print(f'replay of the chosen rules matches {agree}/{total} link seconds of this build')
    print('  the build, rooms 0-5:', score(CHOSEN, VAL6), '; all rooms:', score(CHOSEN, ALL))
    print('  rooms 30-41 (fresh) shipped -> chosen:', score({}, [r for r in ALL if r >= 30]), '->', score(CHOSEN, [r for r in ALL if r >= 30]))
    print('\n  the choice, episodes of the empty rooms:')
    for (kind, room), (lat, fused, truth) in run(CHOSEN, ALL).items():
        if kind != 'empty':
            continue
        links = sess[(kind, room)]
        s = 10; n = len(fused)
        while s < n:
            if not fused[s] or (s > 10 and fused[s - 1]):
                s += 1; continue
            e = s
            while e < n and fused[e]:
                e += 1
            who = [f"{l} {lat[l][s][1]} ({source(links[l][s])})" for l in links if lat[l].get(s, (False,))[0]]
            print(f'    room {room}: {s}-{e}: {who}')
            s = e

if 'grid2' in parts:
    print('\n== 6. second grid (addendum of pilot/presence4-protocol.md), on top of the first choice')
    shipped = score({}, ALL); first = score(CHOSEN, ALL)
    print('  shipped', shipped, '; first choice', first)
    res = []
    for dm, pm, wu in itertools.product((False, True), (None, (60, 0.5), (120, 0.8)), (30, 10)):
        rule = dict(CHOSEN)
        if dm: rule['dropMachine'] = True
        if pm: rule.update(pW=pm[0], pShare=pm[1])
        if wu != 30: rule['warm'] = wu
        res.append((score(rule, ALL), rule))
    for sc, r in res:
        print('   ', sc, r)
    ok = [x for x in res if x[0]['recall'] >= shipped['recall'] - 0.005]
    ok.sort(key=lambda x: (x[0]['perDay'], x[0]['afterMedian'], len(x[1])))
    best = ok[0]
    print('  CHOICE:', best[1], best[0], '-> beats the first choice' if best[0]['perDay'] < first['perDay'] else '-> does not beat the first choice: keep it')
    print('  rooms 0-5:', score(best[1], VAL6), '; rooms 30-41:', score(best[1], [r for r in ALL if r >= 30]))

if 'steadyfan' in parts:
    # After the test run (which lost two sitting rooms in fan rooms): on VALIDATION rooms, how many still-person seconds
    # the shipped rules hold by a steady keep whose peak is a fan's aliased line, and which the choice loses.
    print('\n== 7. still sessions: seconds held by the steady keep (shipped), and whose peak sits on a fan line; seconds the choice loses')
    for (kind, room), (lat, fused, truth) in run({}, ALL).items():
        if kind != 'still':
            continue
        links = sess[(kind, room)]
        lat2, fused2, _ = run(CHOSEN, [room])[(kind, room)]
        held = [s for s in range(10, len(fused)) if truth[s] and fused[s] and all(lat[l].get(s, (False, ''))[1] in ('steady', 'none', 'gap') for l in links)]
        fanpk = [s for s in held if any(lat[l].get(s, (False, ''))[1] == 'steady' and is_fan_line(links[l][s]) for l in links)]
        lost = [s for s in range(10, len(fused)) if truth[s] and fused[s] and not fused2[s]]
        if held or lost:
            print(f"  room {room} {'lying' if room % 2 else 'sitting'} fan {links[next(iter(links))][10]['fr']}: held only by steady {len(held)} s, of them on a fan line {len(fanpk)} s; lost by the choice {len(lost)} s")
