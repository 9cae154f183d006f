# Pilot (not shipped as code; issue 22, presence round 3): on VALIDATION rooms only, (1) why a still person is
# missed once the 300-s hold runs out, (2) what the breathing lines that start false presence in empty rooms are
# (a fan's alias, a resting cat, the 7.8-8.3 bpm line) against a still person's line, (3) a replay of the
# presence rules with the candidate remedies of pilot/presence3-protocol.md.
# Reads dumps of pilot/sim_pets_dump.mjs (rooms 0-17: the 18 validation rooms of the pets round; 18-29: fresh
# seeds 72018-72029 added here). The 12 test rooms of `npm run eval:sim` are never read.
#   node plugins/sensing/pilot/sim_pets_dump.mjs 15 > /tmp/p3/dumpA.jsonl
#   FROM=15 node plugins/sensing/pilot/sim_pets_dump.mjs 30 > /tmp/p3/dumpB.jsonl
#   python3 plugins/sensing/pilot/sim_presence3.py /tmp/p3/dumpA.jsonl /tmp/p3/dumpB.jsonl [fidget misses motion lines steady grid]
# After the choice was built, the same dumps of the new build (to /tmp/p3/newA.jsonl, newB.jsonl) with `built`.
import json, sys
from collections import defaultdict
import numpy as np

files = [a for a in sys.argv[1:] if a.endswith('.jsonl')]
parts = [a for a in sys.argv[1:] if not a.endswith('.jsonl')] or ['fidget', 'misses', 'motion', 'lines', 'steady', 'grid']
sess = defaultdict(lambda: defaultdict(dict))
for f in files:
    for l in open(f):
        r = json.loads(l)
        r.pop('prof', None)
        sess[(r['kind'], r['room'])][r['link']][r['s']] = r
GRID_HZ = 10

def fan_lines(rpm, blades, harmonics=30):
    """The fan's blade-pass harmonics as the 10-Hz grid aliases them, in bpm (the channel repeats blades x rpm / 60 a
    second; a blade tip sweeps many wavelengths, so its phase modulation has strong high harmonics)."""
    if not rpm:
        return []
    out = []
    for m in range(1, harmonics + 1):
        f = m * rpm * blades / 60
        out.append(abs(f - GRID_HZ * round(f / GRID_HZ)) * 60)
    return out

def source(r):
    """What truly moves or breathes in a link second (the simulator's truth)."""
    if r['pp']:
        return 'person moving' if r['v'] >= 0.2 else 'person still'
    if r['door']:
        return 'door'
    if r['cat']:
        return 'cat walking'
    return 'nothing moving'

def line_source(r):
    """Which truth a breathing line of an empty or still room sits on (within 1 bpm), first match wins."""
    eb = r['eb']
    if r['pp'] and r['tb'] is not None:
        for k in (1, 2, 3):
            if abs(eb - k * r['tb']) <= 1:
                return f'person x{k}'
    if any(abs(eb - a) <= 0.5 for a in fan_lines(r['fr'], r['fb'] or 3)):
        return 'fan alias'
    if r['kind'] == 'empty' and abs(eb - 30) <= 1:
        return 'cat resting (30)'
    if 7.6 <= eb <= 8.5:
        return '7.6-8.5'
    return 'other'

# ---------- the presence rules, as src/signal/presence.ts, with the candidate remedies ----------
def latch(secs, rule):
    """Per second: (present, basis) of one link; `rule` keys are the candidates of pilot/presence3-protocol.md:
    steadyKeepWindow/steadyKeepShare (H), entryPeak (E), reMoving (B), startVeto (C); {} is the shipped rules."""
    if rule.get('built'):
        return {s: (r['p'], 'built') for s, r in secs.items()}
    out = {}
    mov = []; sizes = []; br = []; anym = []
    present = False; last = -1e9; last_present = -1e9
    reads = []  # (second, rate) of the seconds a rate was read
    peaks = []  # (second, peak rate) of the seconds a spectrum was read, any strength
    n = max(secs) + 1 if secs else 0
    for s in range(n):
        r = secs.get(s)
        if r is None:
            out[s] = (present, 'gap'); continue
        moving = r['mo'] >= 0.5
        ratio = r['ps'] / max(r['pf'], 1e-9)
        warm = s < 30  # the floor is young (presenceFloorWarmupSeconds)
        big = moving and (warm or ratio >= 2)
        breathing = r['b']
        if breathing:
            reads.append((s, r['eb']))
        if r['eb'] is not None:
            peaks.append((s, r['eb']))
        starts = breathing
        if starts and rule.get('startVeto'):
            near = sum(1 for (t, e) in reads if t > s - 120 and abs(e - r['eb']) <= 0.25)
            if near >= 0.8 * 120:
                starts = False
        mov.append(1 if big else 0); sizes.append((float('inf') if warm else ratio) if big else 0); anym.append(1 if moving else 0); br.append(1 if starts else 0)
        recent = sum(mov[-10:]); breathed = sum(br[-30:])
        entry = big and recent >= 4 and (not rule.get('entryPeak') or max(sizes[-10:]) >= rule['entryPeak'])
        re_entry = bool(rule.get('reMoving')) and not present and s - last_present <= 600 and moving and sum(anym[-10:]) >= rule['reMoving']
        steady = False
        if rule.get('steadyKeepWindow') and present:
            W = rule['steadyKeepWindow']
            w = [e for (t, e) in peaks if t > s - W]
            if len(w) >= rule['steadyKeepShare'] * W:
                med = float(np.median(w))
                steady = sum(1 for e in w if abs(e - med) <= 0.5) >= rule['steadyKeepShare'] * W
        basis = 'none'
        if entry:
            basis = 'entry'
        elif re_entry:
            basis = 'reentry'
        elif present and moving:
            basis = 'moving'
        elif breathing and (present or breathed >= 20):
            basis = 'breathing'
        elif present and s - last <= rule.get('hold', 300):
            basis = 'hold'
        elif steady:
            basis = 'steady'
        if moving or basis in ('entry', 'reentry'):
            last = s  # as presence.ts: every moving second restarts the hold's clock, present or not
        present = basis != 'none'
        if present:
            last_present = s
        out[s] = (present, basis)
    return out

def score(rule, rooms, verbose=False):
    still = [0, 0]; eps = 0; empty_s = 0; pres_s = 0; after = []; detail = []
    for (kind, room), links in sorted(sess.items()):
        if room not in rooms:
            continue
        lat = {l: latch(secs, rule) for l, secs in links.items()}
        n = max(max(secs) for secs in links.values()) + 1
        fused = [any(lat[l].get(s, (False,))[0] for l in links) for s in range(n)]
        truth = [any(links[l].get(s, {}).get('pp', False) for l in links) for s in range(n)]
        if kind == 'still':
            miss = 0
            for s in range(10, n):
                if truth[s]:
                    still[1] += 1; still[0] += fused[s]; miss += not fused[s]
            if miss:
                detail.append(f'still room {room}: {miss} s missed')
        elif kind == 'empty':
            was = False
            for s in range(10, n):
                empty_s += 1; pres_s += fused[s]
                if fused[s] and not was:
                    eps += 1
                    why = [f"{l}:{lat[l][s][1]}:{source(links[l][s])}:{links[l][s]['eb']}" for l in links if s in links[l] and lat[l][s][0]]
                    detail.append(f'empty room {room} episode at {s}: {why}')
                was = fused[s]
        elif kind == 'leave':
            left = max(s for s in range(n) if truth[s]) + 1
            after.append(sum(1 for s in range(left + 5, n) if fused[s]))
    after.sort()
    if verbose:
        for d in detail:
            print('   ', d)
    return dict(recall=round(still[0] / max(1, still[1]), 4), perDay=round(eps / max(1, empty_s) * 86400, 1), episodes=eps, emptyShare=round(pres_s / max(1, empty_s), 3), afterMedian=after[len(after) // 2] if after else None)

ALL = set(r for (_, r) in sess)
OLD = set(r for r in ALL if r < 18)
FRESH = set(r for r in ALL if r >= 18)

# Check first: the replay of the shipped rules gives each link second's own presence.
agree = total = 0
for (kind, room), links in sess.items():
    for l, secs in links.items():
        lat = latch(secs, {})
        for s, r in secs.items():
            total += 1; agree += lat[s][0] == r['p']
print(f'replay of the shipped rules matches {agree}/{total} link seconds of the built code')

if 'fidget' in parts:
    print('\n== 1. still rooms: the misses, and what happened in them (shipped rules)')
    for (kind, room), links in sorted(sess.items()):
        if kind != 'still':
            continue
        lat = {l: latch(secs, {}) for l, secs in links.items()}
        n = max(max(secs) for secs in links.values()) + 1
        fused = [any(lat[l].get(s, (False,))[0] for l in links) for s in range(n)]
        truth = [any(links[l].get(s, {}).get('pp', False) for l in links) for s in range(n)]
        miss = [s for s in range(10, n) if truth[s] and not fused[s]]
        if not miss:
            continue
        posture = 'lying' if room % 2 else 'sitting'
        first = miss[0]
        # last basis before the miss on each link
        before = {l: lat[l].get(first - 1, (None, None))[1] for l in links}
        # the person's movements (truth speed >= 0.05 m/s) and what the links read during the miss
        fid = [s for s in miss if any(links[l].get(s, {}).get('v', 0) >= 0.05 for l in links)]
        read = []
        for s in fid:
            for l in links:
                r = links[l].get(s)
                if r:
                    read.append((s, l, round(r['v'], 2), round(r['mo'], 2), round(r['ps'] / max(r['pf'], 1e-9), 2)))
        moving_read = sum(1 for x in read if x[3] >= 0.5)
        rated = sum(1 for s in miss for l in links if links[l].get(s, {}).get('b'))
        print(f'room {room} {posture}: {len(miss)} s missed from {first} (last basis {before}); person moved in {len(fid)} missed s; links read moving in {moving_read} of those link-s; a rate read in {rated} missed link-s; fan {links[next(iter(links))][first]["fr"]}')
        for x in read[:12]:
            print('     s, link, speed, motion, size:', x)

if 'lines' in parts:
    print('\n== 2. breathing lines: where the rates read in each kind of second sit (share of read seconds)')
    cls = defaultdict(lambda: defaultdict(int))
    for (kind, room), links in sess.items():
        for l, secs in links.items():
            for s, r in secs.items():
                if not r['b'] or s < 10:
                    continue
                src = f"{kind}/{source(r)}"
                cls[src][line_source(r)] += 1
    for k, v in sorted(cls.items()):
        tot = sum(v.values())
        print(f'  {k} ({tot} link-s):', ', '.join(f'{a} {b / tot:.2f}' for a, b in sorted(v.items(), key=lambda x: -x[1])))
    print('\n   each empty room link: its most read line, and the lowest blade-pass harmonic the 10-Hz grid aliases within 0.5 bpm of it')
    for (kind, room), links in sorted(sess.items()):
        if kind != 'empty':
            continue
        for l, secs in links.items():
            rs = [r for s, r in secs.items() if r['b'] and s >= 10]
            if len(rs) < 20:
                continue
            top = np.median([r['eb'] for r in rs if abs(r['eb'] - np.median([x['eb'] for x in rs])) <= 2])
            lines = fan_lines(rs[0]['fr'], rs[0]['fb'] or 3, 60)
            m = next((i + 1 for i, a in enumerate(lines) if abs(a - top) <= 0.5), None)
            print(f'    room {room} {l}: {len(rs)} s with a rate, line {top:.2f} bpm; fan {rs[0]["fr"]} rpm x {rs[0]["fb"]} blades: harmonic {m}')
    print('\n   steadiness of a line: over the last 60 s of a link, spread (max - min) of the rates read, and share of those seconds with a rate')
    steady = defaultdict(list)
    for (kind, room), links in sess.items():
        for l, secs in links.items():
            ebs = []
            for s in sorted(secs):
                r = secs[s]
                if r['b']:
                    ebs.append((s, r['eb']))
                    w = [e for (t, e) in ebs if t > s - 60]
                    if s >= 70:
                        steady[(kind if kind != 'leave' else 'still', line_source(r) if kind == 'empty' or r['pp'] else 'after leaving')].append((max(w) - min(w), len(w) / 60, r['eq']))
    for k, v in sorted(steady.items()):
        a = np.array(v)
        print(f'  {k}: n={len(a)} spread q10/50/90 {np.percentile(a[:, 0], [10, 50, 90]).round(2)} read-share q10/50/90 {np.percentile(a[:, 1], [10, 50, 90]).round(2)} quality q10/50/90 {np.percentile(a[:, 2], [10, 50, 90]).round(1)}')
    print('\n   the 7.6-8.5 bpm line: where it is read, and the still run before it (a fixed number of cycles per window?)')
    rows = []
    for (kind, room), links in sess.items():
        for l, secs in links.items():
            run = 0
            for s in sorted(secs):
                r = secs[s]
                run = 0 if r['mo'] >= 0.5 else run + 1
                if r['eb'] is not None and r['eq'] is not None and r['eq'] >= 4 and not r['ee'] and s >= 10:
                    rows.append((kind, room, l, s, r['eb'], min(run, 30), r['fr'], r['pp'], r['br']))
    a = [x for x in rows if 7.6 <= x[4] <= 8.5]
    print(f'  spectrum peaks with quality >= 4 (no edge): {len(rows)}; at 7.6-8.5 bpm: {len(a)} in rooms', sorted(set((x[0], x[1]) for x in a))[:40])
    runs = np.array([x[5] for x in a]) if a else np.array([0])
    print('  still-run seconds (window) of those: q10/50/90', np.percentile(runs, [10, 50, 90]))
    by_win = defaultdict(list)
    for x in rows:
        by_win[x[5]].append(x[4])
    print('  cycles per window of the lowest in-band peaks (rate x window / 60) by window length, peaks under 12 bpm:')
    for w in sorted(by_win):
        low = [e for e in by_win[w] if e < 12]
        if len(low) >= 20:
            c = np.array(low) * w / 60
            print(f'    window {w} s: n={len(low)} rate q50 {np.median(low):.2f} cycles q25/50/75 {np.percentile(c, [25, 50, 75]).round(2)}')
    post = defaultdict(int)
    for x in a:
        if x[7]:
            post['sitting' if x[0] == 'leave' or x[1] % 2 == 0 else 'lying'] += 1
    # The simulator's seated posture sways its trunk 0.015 rad at 0.13 Hz = 7.8 bpm (plugins/sim/src/people/motions.ts, `sitting`).
    print('  person there, by posture (still sessions: even rooms sit, odd rooms lie; leaving sessions sit):', dict(post))
    fans = defaultdict(int)
    for x in a:
        fans['fan' if x[6] else 'no fan'] += 1
    print('  with / without a fan:', dict(fans), '; reasons:', dict((k, sum(1 for x in a if x[8] == k)) for k in set(x[8] for x in a)))

if 'misses' in parts:
    print('\n== 1b. in the missed still rooms: where the spectrum peak sits against the true rate, and how strong it is')
    for (kind, room), links in sorted(sess.items()):
        if kind != 'still':
            continue
        for l, secs in links.items():
            lat = latch(secs, {})
            miss = [s for s in secs if s >= 10 and secs[s]['pp'] and not lat[s][0]]
            if not miss:
                continue
            e = [(secs[s]['eb'], secs[s]['eq']) for s in miss if secs[s]['eb'] is not None]
            if not e:
                print(f'  room {room} {l}: {len(miss)} s missed, no spectrum'); continue
            d = np.array([abs(a - secs[miss[0]]['tb']) for a, _ in e]); q = np.array([b for _, b in e])
            print(f'  room {room} {l}: {len(miss)} s missed; peak within 1 bpm of the true rate in {np.mean(d <= 1):.2f} of them, peak-to-median q50/90 {np.percentile(q, [50, 90]).round(1)}')

if 'motion' in parts:
    print('\n== 1c. motion probability of a still person\'s small movements (0.03-0.2 m/s) against nothing moving')
    groups = defaultdict(list)
    for (kind, room), links in sess.items():
        for l, secs in links.items():
            for s, r in secs.items():
                if s < 30:
                    continue
                if kind == 'still' and r['pp'] and 0.03 <= r['v'] < 0.2: groups['still person, small movement'].append(r['mo'])
                if kind == 'empty' and source(r) == 'nothing moving': groups['empty room, nothing moving'].append(r['mo'])
                if kind == 'leave' and not r['pp']: groups['after leaving'].append(r['mo'])
    for k, a in groups.items():
        a = np.array(a)
        print(f'  {k}: n={len(a)} motion q50/90 {np.percentile(a, [50, 90]).round(3)}; share >= 0.2/0.3/0.5', [round(float(np.mean(a >= t)), 3) for t in (0.2, 0.3, 0.5)])
    agree = {'still': [0, 0, 0], 'empty': [0, 0, 0]}
    for (kind, room), links in sess.items():
        if kind not in agree or len(links) < 2:
            continue
        a_, b_ = list(links)
        for s in links[a_]:
            a = links[a_].get(s); b = links[b_].get(s)
            if not a or not b or s < 30 or (kind == 'still' and not a['pp']):
                continue
            if a['b'] and b['b']: agree[kind][0 if abs(a['eb'] - b['eb']) <= 1 else 1] += 1
            elif a['b'] or b['b']: agree[kind][2] += 1
    print('  two-link rooms, seconds with a rate [both links agree within 1 bpm, they differ, one link only]:', agree)

if 'steady' in parts:
    print('\n== 2b. steadiness of the spectrum peak (any strength): share of the last 60 s whose peak is within 0.5 bpm of their median')
    res = defaultdict(list)
    for (kind, room), links in sess.items():
        for l, secs in links.items():
            hist = []
            for s in sorted(secs):
                r = secs[s]
                if r['eb'] is not None:
                    hist.append((s, r['eb']))
                if s < 70 or r['eb'] is None:
                    continue
                w = [e for (t, e) in hist if t > s - 60]
                st = float(np.mean([abs(e - np.median(w)) <= 0.5 for e in w])) * len(w) / 60
                fan = 'fan' if r['fr'] else 'no fan'
                key = f'still person ({fan})' if kind == 'still' and r['pp'] else f'after leaving ({fan})' if kind == 'leave' and not r['pp'] else 'empty room (fan, cat, door)' if kind == 'empty' else None
                if key:
                    res[key].append((st, r['eq']))
    for k, v in sorted(res.items()):
        a = np.array(v)
        print(f'  {k}: n={len(a)} steady q10/50/90 {np.percentile(a[:, 0], [10, 50, 90]).round(2)}; seconds steady >= 0.7: {np.mean(a[:, 0] >= 0.7):.3f}, of them below the rate threshold (quality < 4): {np.mean((a[:, 0] >= 0.7) & (a[:, 1] < 4)):.3f}')

CHOSEN = {'steadyKeepWindow': 120, 'steadyKeepShare': 0.7}
if 'built' in parts:
    # On a dump of the build with the chosen rule shipped: the replay of the choice against the code's own presence.
    agree = total = 0
    for (kind, room), links in sess.items():
        for l, secs in links.items():
            lat = latch(secs, CHOSEN)
            for s, r in secs.items():
                total += 1; agree += lat[s][0] == r['p']
    print(f'replay of the chosen rules matches {agree}/{total} link seconds of this build')
    for name, rooms in (('rooms 0-17', OLD), ('rooms 18-29', FRESH), ('all 30', ALL)):
        print(f'  {name}: the build itself {score({"built": True}, rooms)}')

if 'grid' in parts:
    print('\n== 3. replay: shipped rules and candidates on the validation rooms')
    for name, rooms in (('rooms 0-17 (seen in the pets round)', OLD), ('rooms 18-29 (fresh)', FRESH), ('all 30', ALL)):
        print(f'  {name}: shipped', score({}, rooms, verbose=name.startswith('all')))
    import itertools
    H = [None] + [(w, sh) for w in (60, 120) for sh in (0.7, 0.8, 0.9)]
    res = []
    shipped = score({}, ALL)
    for h, e, b, c in itertools.product(H, (None, 3, 4), (None, 1, 2), (False, True)):
        rule = {}
        if h: rule.update(steadyKeepWindow=h[0], steadyKeepShare=h[1])
        if e: rule['entryPeak'] = e
        if b: rule['reMoving'] = b
        if c: rule['startVeto'] = True
        sc = score(rule, ALL)
        res.append((sc, rule))
    print(f'  {len(res)} combinations; shipped (all 30 rooms): {shipped}')
    ok = [(sc, r) for sc, r in res if sc['emptyShare'] <= shipped['emptyShare'] + 0.05 and sc['afterMedian'] <= shipped['afterMedian'] + 30]
    print(f'  {len(ok)} pass the guard (empty share <= {shipped["emptyShare"] + 0.05:.3f}, after-leaving median <= {shipped["afterMedian"] + 30})')
    ok.sort(key=lambda x: (-round(x[0]['recall'], 3), x[0]['perDay'], len(x[1]), x[0]['emptyShare']))
    for sc, r in ok[:15]:
        print('   ', sc, r)
    print('  rejected by the guard, best recall first:')
    for sc, r in sorted([x for x in res if x not in ok], key=lambda x: (-x[0]['recall'], x[0]['perDay']))[:5]:
        print('   ', sc, r)
    best = ok[0]
    wins = round(best[0]['recall'], 3) > round(shipped['recall'], 3) or (round(best[0]['recall'], 3) == round(shipped['recall'], 3) and best[0]['perDay'] < shipped['perDay'])
    print('  CHOICE:', best[1], best[0], '-> beats shipped' if wins else '-> does not beat shipped: ship nothing')
    for name, rooms in (('rooms 0-17', OLD), ('rooms 18-29', FRESH)):
        print(f'    {name}: shipped {score({}, rooms)} -> choice {score(best[1], rooms)}')
    print('  each rule alone at its best setting:')
    for key in ('steadyKeepWindow', 'entryPeak', 'reMoving', 'startVeto'):
        alone = [x for x in res if set(x[1]) <= {key, 'steadyKeepShare'} and x[1]]
        alone.sort(key=lambda x: (-round(x[0]['recall'], 3), x[0]['perDay']))
        print('   ', key, alone[0][1], alone[0][0])
    print('  the choice, episode by episode (all 30 rooms):')
    score(best[1], ALL, verbose=True)
