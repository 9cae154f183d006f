# Pilot (issue 22, presence round 5; pilot/presence5-protocol.md): on VALIDATION rooms only, (1) what starts each
# false-presence episode of the empty rooms (fan, cat, door) and why an empty link reads "moving"; (2) a replay of
# the shipped presence rules per link and room, checked against the build's own per-link presence (`p`); (3) a grid
# of candidate rules, scored as `scoreSimRuns` scores (recall of still seconds from 10 s, false-presence episodes per
# simulated day, median seconds present from 5 s after leaving), with bootstrap intervals over rooms.
# The 12 test rooms of `npm run eval:sim` are never read.
# Dump (rooms 78-89 of the validation split, seeds 72078-72089, the evaluation's own recipe, never used before):
#   FROM=78 node plugins/sensing/pilot/sim_pets_dump.mjs 90 > /tmp/presence5-dump/base.jsonl
#   python3 plugins/sensing/pilot/sim_presence5.py /tmp/presence5-dump/base.jsonl [check starts moving grid]
import json, sys, itertools, random
from collections import defaultdict, Counter

files = [a for a in sys.argv[1:] if a.endswith('.jsonl')]
parts = [a for a in sys.argv[1:] if not a.endswith('.jsonl')] or ['check', 'starts', 'moving']
sess = defaultdict(lambda: defaultdict(dict))
FP = set()
for f in files:
    for l in open(f):
        r = json.loads(l)
        r.pop('prof', None)
        sess[(r['kind'], r['room'])][r['link']][r['s']] = r
        FP.add(r.get('fp'))
if len(FP) > 1 and not __import__('os').environ.get('ALLOW_MIXED_DUMPS'):
    # base.jsonl was dumped before the true-median commit, the later dumps after it: the builds differ in
    # src/eval only (the evaluation's median), not in the sensing; ALLOW_MIXED_DUMPS=1 reads them together.
    sys.exit(f'dumps of different builds mixed: {FP}')
ROOMS = sorted(set(room for (_, room) in sess))
print('build (fp):', FP, '| rooms', ROOMS[0], '-', ROOMS[-1], f'({len(ROOMS)})')

def source(r):
    if r['pp']:
        return 'person moving' if r['v'] >= 0.2 else 'person still'
    if r['door']:
        return 'door'
    if r['cat']:
        return 'cat'
    return 'nothing'

SHIPPED = dict(entryN=4, entryW=10, warm=30, review=False, keepSize=0, startW=0, entrySize=2, reviewSize=2)

def latch(secs, rule):
    """Per second (present, basis) of one link: src/signal/presence.ts with the shipped config (machine line 120 s,
    +-0.5 bpm, share 0.5; steady keep 120 s, +-2 bpm, share 0.5), plus the candidates of the protocol:
    entryN/entryW: moving seconds within the window that make an entry;
    review: at the end of the floor warm-up (`warm` s), the warm-up's moving seconds are judged against the floor
      learned by then; if no `entryN` of them within `entryW` s are person-sized (>= 2 x that floor), a presence that
      rests on a warm-up entry (no breathing start, no later entry) ends there;
    keepSize: a moving second restarts the hold only when its size is at least this (0: any);
    startW: a breathing rate starts presence only when fewer than half of the last startW s had a spectrum peak
      within 0.5 bpm of it (a machine's line judged over a shorter window, for starts only; 0: off)."""
    out = {}
    mov = []; br = []; peaks = []
    present = False; last = -1e9
    warm = rule['warm']
    warm_moves = []  # (second, pair spread) of the warm-up's moving seconds
    rests_on_warm = False
    n = max(secs) + 1 if secs else 0
    for s in range(n):
        r = secs.get(s)
        if r is None:
            out[s] = (present, 'gap'); continue
        moving = r['mo'] >= 0.5
        in_warm = s < warm
        size = float('inf') if in_warm else r['ps'] / max(r['pf'], 1e-9)
        if in_warm and moving:
            warm_moves.append((s, r['ps']))
        big = moving and size >= rule['entrySize']
        keep = moving and size >= rule['keepSize']
        eb = r['eb']
        machine = False
        if eb is not None:
            w = [e for (t, e) in peaks if t > s - 120]
            machine = len(w) >= 60 and sum(1 for e in w if abs(e - eb) <= 0.5) >= 60
        breathing = r['b'] and not machine
        starts = breathing
        if starts and rule['startW'] and eb is not None:
            w = [e for (t, e) in peaks if t > s - rule['startW']]
            if sum(1 for e in w if abs(e - eb) <= 0.5) >= 0.5 * rule['startW']:
                starts = False
        if eb is not None:
            peaks.append((s, eb))
        mov.append(1 if big else 0); br.append(1 if starts else 0)
        recent = sum(mov[-rule['entryW']:]); breathed = sum(br[-30:])
        steady = False
        if present and not machine:
            w = sorted(e for (t, e) in peaks if t > s - 120)
            if len(w) >= 60:
                m = len(w) // 2
                med = w[m] if len(w) % 2 else (w[m - 1] + w[m]) / 2
                steady = sum(1 for e in w if abs(e - med) <= 2) >= 60
        basis = 'none'
        if big and recent >= rule['entryN']:
            basis = 'entry'
        elif present and keep:
            basis = 'moving'
        elif breathing and (present or breathed >= 20):
            basis = 'breathing'
        elif present and s - last <= 300:
            basis = 'hold'
        elif steady:
            basis = 'steady'
        if basis == 'entry' and in_warm:
            rests_on_warm = True
        elif basis == 'entry' or (basis == 'breathing' and not present):
            rests_on_warm = False
        dropped = False
        if rule['review'] and s == warm and rests_on_warm:
            floor = r['pf']
            ok = [t for (t, ps) in warm_moves if ps >= rule['reviewSize'] * floor]
            person = any(sum(1 for u in ok if t - rule['entryW'] < u <= t) >= rule['entryN'] for t in ok)
            if not person and basis in ('moving', 'hold', 'steady'):
                basis = 'none'; dropped = True
            rests_on_warm = False
        if keep or basis == 'entry':
            last = s
        if dropped:
            last = -1e9  # the dropped presence's moving seconds hold nothing
        present = basis != 'none'
        out[s] = (present, basis)
    return out

CACHE = {}
def run(rule):
    key = tuple(sorted(rule.items()))
    if key in CACHE:
        return CACHE[key]
    res = {}
    for (kind, room), links in sorted(sess.items()):
        lat = {l: latch(secs, rule) for l, secs in links.items()}
        n = max(max(secs) for secs in links.values()) + 1
        fused = [any(lat[l].get(s, (False,))[0] for l in links) for s in range(n)]
        truth = [any(links[l].get(s, {}).get('pp', False) for l in links) for s in range(n)]
        res[(kind, room)] = (lat, fused, truth)
    CACHE[key] = res
    return res

def per_room(rule):
    """Per room: still (found, total), empty (episodes, seconds), leave (seconds present after leaving)."""
    out = defaultdict(dict)
    for (kind, room), (lat, fused, truth) in run(rule).items():
        n = len(fused)
        if kind == 'still':
            tot = [s for s in range(10, n) if truth[s]]
            out[room]['still'] = (sum(fused[s] for s in tot), len(tot))
        elif kind == 'empty':
            eps = 0; was = False
            for s in range(10, n):
                if fused[s] and not was:
                    eps += 1
                was = fused[s]
            out[room]['empty'] = (eps, n - 10, sum(fused[10:]))
        elif kind == 'leave':
            left = max(s for s in range(n) if truth[s]) + 1
            out[room]['leave'] = sum(1 for s in range(left + 5, n) if fused[s])
    return out

def median(v):
    v = sorted(v); m = len(v) // 2
    return None if not v else v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2

def figures(pr, rooms):
    f = sum(pr[r]['still'][0] for r in rooms); t = sum(pr[r]['still'][1] for r in rooms)
    e = sum(pr[r]['empty'][0] for r in rooms); es = sum(pr[r]['empty'][1] for r in rooms)
    return dict(recall=f / max(1, t), perDay=e / max(1, es) * 86400, episodes=e, after=median([pr[r]['leave'] for r in rooms]))

def boot(pr, rooms, n=2000, seed=5):
    rnd = random.Random(seed)
    keys = ['recall', 'perDay', 'after']
    draws = {k: [] for k in keys}
    for _ in range(n):
        pick = [rnd.choice(rooms) for _ in rooms]
        fg = figures(pr, pick)
        for k in keys:
            draws[k].append(fg[k])
    ci = {}
    for k in keys:
        d = sorted(draws[k]); ci[k] = (d[int(0.025 * n)], d[int(0.975 * n) - 1])
    return ci

def boot_diff(pa, pb, rooms, n=2000, seed=5):
    """Bootstrap (over rooms, paired) 95 % interval of b - a for recall and false presence per day."""
    rnd = random.Random(seed)
    d = {'recall': [], 'perDay': []}
    for _ in range(n):
        pick = [rnd.choice(rooms) for _ in rooms]
        fa, fb = figures(pa, pick), figures(pb, pick)
        for k in d:
            d[k].append(fb[k] - fa[k])
    return {k: (sorted(v)[int(0.025 * n)], sorted(v)[int(0.975 * n) - 1]) for k, v in d.items()}

def show(name, rule):
    pr = per_room(rule)
    fg = figures(pr, ROOMS); ci = boot(pr, ROOMS)
    print(f"{name}: recall {fg['recall']:.4f} [{ci['recall'][0]:.4f}, {ci['recall'][1]:.4f}]  false presence/day {fg['perDay']:.1f} "
          f"[{ci['perDay'][0]:.1f}, {ci['perDay'][1]:.1f}] ({fg['episodes']} episodes)  after leaving (median) {fg['after']} [{ci['after'][0]}, {ci['after'][1]}]")
    return pr, fg

if 'check' in parts:
    agree = total = 0; bad = Counter()
    for (kind, room), (lat, fused, truth) in run(SHIPPED).items():
        for l, secs in sess[(kind, room)].items():
            for s, r in secs.items():
                total += 1
                if lat[l][s][0] == r['p']:
                    agree += 1
                else:
                    bad[(kind, room, l)] += 1
    print(f'replay of the shipped rules vs the build: {agree}/{total} link seconds agree', dict(bad.most_common(5)) if bad else '')
    show('shipped (replay)', SHIPPED)

if 'starts' in parts:
    print('\nfalse-presence episodes of the empty rooms (shipped rules): room, link, start second, basis, what moved, link age')
    for (kind, room), (lat, fused, truth) in sorted(run(SHIPPED).items()):
        if kind != 'empty':
            continue
        was = False
        for s in range(10, len(fused)):
            if fused[s] and not was:
                who = [(l, lat[l].get(s, (False, ''))[1]) for l in lat if lat[l].get(s, (False,))[0]]
                starts = []
                for l, b in who:
                    # the first present second of this link's run up to s
                    t = s
                    while t - 1 >= 0 and lat[l].get(t - 1, (False,))[0]:
                        t -= 1
                    r = sess[(kind, room)][l][t]
                    starts.append(f"{l} from {t} s ({lat[l][t][1]}; truth {source(r)}; eb {r['eb']}, fan lines? fr {r['fr']}; ps/pf {r['ps'] / max(r['pf'], 1e-9):.2f})")
                ended = next((u for u in range(s, len(fused)) if not fused[u]), len(fused))
                print(f'  room {room}: {s}-{ended} s; ' + ' | '.join(starts))
            was = fused[s]

if 'moving' in parts:
    # Why an empty link reads moving: per source, share of link seconds with mo >= 0.5, by link age, and the features.
    print('\nempty rooms: link seconds reading moving, by what truly moved and link age')
    c = Counter(); m = Counter(); feats = defaultdict(list)
    for (kind, room), links in sess.items():
        if kind != 'empty':
            continue
        for l, secs in links.items():
            for s, r in secs.items():
                age = 'first 10 s' if s < 10 else 'warm-up 10-29 s' if s < 30 else '30 s on'
                k = (source(r), age)
                c[k] += 1
                if r['mo'] >= 0.5:
                    m[k] += 1
                    feats[k].append((r['ps'], r['ps'] / max(r['pk'], 1e-9), r['ps'] / max(r['pf'], 1e-9)))
    for k in sorted(c):
        fs = feats[k]
        med = lambda i: median([f[i] for f in fs]) if fs else None
        print(f'  {k[0]:8s} {k[1]:16s}: {m[k]}/{c[k]} moving ({m[k] / max(1, c[k]):.2f}); moving seconds median pairSpread {med(0)}, pairSpread/packetStep {med(1)}, over floor {med(2)}')
    # Per link: share of moving seconds with nothing moving, over the session, to see wandering links.
    print('  per empty link: share of "nothing" seconds reading moving (first 30 s / rest)')
    for (kind, room), links in sorted(sess.items()):
        if kind != 'empty':
            continue
        for l, secs in links.items():
            a = [secs[s]['mo'] >= 0.5 for s in secs if s < 30 and source(secs[s]) == 'nothing']
            b = [secs[s]['mo'] >= 0.5 for s in secs if s >= 30 and source(secs[s]) == 'nothing']
            print(f'    room {room} {l}: {sum(a)}/{len(a)}  {sum(b)}/{len(b)}')
    # Still and leaving sessions: the still person's seconds that read moving (they keep presence, not a false start).
    sm = sum(1 for (k, _), links in sess.items() if k == 'still' for secs in links.values() for r in secs.values() if source(r) == 'person still' and r['mo'] >= 0.5)
    st = sum(1 for (k, _), links in sess.items() if k == 'still' for secs in links.values() for r in secs.values() if source(r) == 'person still')
    print(f'  still person, link seconds reading moving: {sm}/{st}')

if 'grid' in parts or 'grid2' in parts:
    base_pr, base = show('shipped (replay)', SHIPPED)
    grid = []
    if 'grid2' in parts:  # addendum A of the protocol
        combos = [dict(SHIPPED, entrySize=es, review=rv, reviewSize=rs, keepSize=ks) for es, (rv, rs), ks in itertools.product([2, 3, 4], [(False, 2), (True, 1.5), (True, 2)], [0, 2])]
    else:
        combos = [dict(SHIPPED, entryN=en, entryW=ew, warm=warm, review=review, keepSize=ks, startW=sw) for (en, ew), (warm, review), ks, sw in itertools.product([(4, 10), (6, 10), (6, 15), (8, 15)], [(30, False), (30, True), (60, True)], [0, 2], [0, 30, 60])]
    for rule in combos:
        pr = per_room(rule); fg = figures(pr, ROOMS)
        changed = sum(1 for k in rule if rule[k] != SHIPPED[k])
        grid.append((rule, pr, fg, changed))
    guard = base['recall'] - 0.005
    ok = [g for g in grid if g[2]['recall'] >= guard]
    ok.sort(key=lambda g: (round(g[2]['perDay'], 6), g[2]['after'], g[3]))
    print(f'\n{len(grid)} candidates; {len(ok)} keep recall >= {guard:.4f}; best 15 by the rule:')
    for rule, pr, fg, ch in ok[:15]:
        print(f"  {rule}: recall {fg['recall']:.4f} perDay {fg['perDay']:.1f} ({fg['episodes']}) after {fg['after']} rules changed {ch}")
    print('best false presence regardless of recall:')
    for rule, pr, fg, ch in sorted(grid, key=lambda g: (g[2]['perDay'], -g[2]['recall']))[:8]:
        print(f"  {rule}: recall {fg['recall']:.4f} perDay {fg['perDay']:.1f} ({fg['episodes']}) after {fg['after']}")
    if ok:
        rule, pr, fg, ch = ok[0]
        show('\nfirst by rules 1-2', rule)
        d = boot_diff(base_pr, pr, ROOMS)
        print('paired bootstrap over rooms, it - shipped (95 %):', d)
        ships = ch > 0 and fg['perDay'] < base['perDay'] and d['perDay'][1] < 0 and d['recall'][0] > -0.02
        print('rule 3 (transfer guard):', 'passes: it ships' if ships else 'fails: nothing ships', rule)

if 'confirm' in parts:  # addendum A: the choice against the shipped rules on the fresh confirmation rooms
    rule = dict(SHIPPED, **json.loads(__import__('os').environ['CHOSEN']))
    pa, _ = show('shipped (replay)', SHIPPED)
    pb, _ = show('choice', rule)
    print('paired bootstrap over rooms, choice - shipped (95 %):', boot_diff(pa, pb, ROOMS))

if 'walkin' in parts:  # addendum B: a person walking in after the floor warm-up (dumps with LEAD=60)
    def walkin(rule):
        found = total = 0; lat = []
        for (kind, room), (L, fused, truth) in sorted(run(rule).items()):
            if kind not in ('still', 'leave'):
                continue
            arrive = next(s for s in range(len(truth)) if truth[s])
            seen = next((s for s in range(arrive, len(fused)) if fused[s]), None)
            lat.append(999 if seen is None else seen - arrive)
            if kind == 'still':
                idx = [s for s in range(arrive, len(fused)) if truth[s]]
                found += sum(fused[s] for s in idx); total += len(idx)
        return found / max(1, total), median(lat), lat
    rule = dict(SHIPPED, **json.loads(__import__('os').environ.get('CHOSEN', '{}')))
    for name, r in [('shipped', SHIPPED), ('candidate', rule)]:
        rec, med, lat = walkin(r)
        print(f'walk in after 60 s empty, {name}: recall of the still person from arrival {rec:.4f}; seconds from arrival to present, median {med} (per session: {lat})')

if 'pooled' in parts:  # addendum B: the transfer guard over every validation room of this round
    rule = dict(SHIPPED, **json.loads(__import__('os').environ.get('CHOSEN', '{}')))
    pa, _ = show('shipped (replay)', SHIPPED)
    pb, _ = show('candidate', rule)
    print('paired bootstrap over rooms, candidate - shipped (95 %):', boot_diff(pa, pb, ROOMS))
