"""Check every edit in edits.json against git: a probe of the old text must occur in the parent's version of the
file and a probe of the new text in the commit's version. usage: python3 scripts/verify.py"""
import json, subprocess, re, collections
e = json.load(open('/work/data15/edits.json'))


def blob(repo, c, f):
    gd = f'/work/.mirror/{repo.replace("/", "+")}/repo'
    try:
        return subprocess.check_output(['git', '-C', gd, 'show', f'{c}:{f}'], stderr=subprocess.DEVNULL).decode('utf-8', 'replace')
    except subprocess.CalledProcessError:
        return None


def probe(t):
    """up to 3 word-runs of 4 words from start/middle/end (string concatenations in source split long runs)"""
    ws = [w for w in re.split(r'[\s"\'`\\{}$]+', t) if w]
    if len(ws) < 4:
        return None
    idx = sorted({0, (len(ws) - 4) // 2, len(ws) - 4})
    return [' '.join(ws[i:i + 4]) for i in idx]


def probe40(t):
    parts = [p for p in re.split(r'[\n"\'`\\{}$]', t) if len(p.strip()) > 12]
    return max(parts, key=len)[:40].strip() if parts else None


def found(pr, b):
    if pr is None:
        return True
    flat = re.sub(r'\s+', ' ', b)
    return sum(p in flat for p in pr) >= min(2, len(pr))


bad = collections.Counter()
ex = []
for x in e:
    nb = blob(x['repo'], x['commit'], x['file'])
    ob = blob(x['repo'], x['parent'], x['file'])
    if ob is None:
        gd = f'/work/.mirror/{x["repo"].replace("/", "+")}/repo'
        ds = subprocess.check_output(['git', '-C', gd, 'diff-tree', '-r', '-M', '--name-status', x['parent'], x['commit']], text=True)
        for l in ds.splitlines():
            f = l.split('\t')
            if f[0].startswith('R') and f[-1] == x['file']:
                ob = blob(x['repo'], x['parent'], f[1])
    po, pn = probe(x['old']), probe(x['new'])
    ok = ob is not None and nb is not None and (found(po, ob) or (probe40(x['old']) or '') in ob) and (found(pn, nb) or (probe40(x['new']) or '') in nb)
    if not ok:
        bad[x['repo']] += 1
        ex.append((x['id'], x['repo'], x['file'], po, pn))
print('edits', len(e), 'not found in git', sum(bad.values()), dict(bad))
for t in ex[:20]:
    print(t)
