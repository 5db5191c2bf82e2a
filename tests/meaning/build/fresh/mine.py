"""Walk first-parent history of each mirror, extract descriptions from old/new versions of changed
source files, pair changed descriptions, write raw candidates to /work/data15/raw/<repo>.json.
usage: python3 mine.py owner/name [owner/name ...]
"""
import sys, os, re, json, subprocess, difflib
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extract_desc import extract, lang_of

MIRROR = '/work/.mirror'
OUT = '/work/data15/raw'
# data15: forbidden repositories (already used in data14 or kept for the independent check)
EXCL = re.compile(r'(^|/)(tests?|__tests__|spec|e2e|evals?|fixtures?|node_modules|dist|build|vendor|docs?|examples?|scripts|benchmarks?|\.github)(/|$)|'
                  r'(_test\.go|\.test\.[jt]sx?|\.spec\.[jt]sx?|(^|/)test_[^/]*\.py|_test\.py|conftest\.py|\.d\.ts|\.min\.js)$', re.I)
TRIGGER = re.compile(r'descri|"""|\'\'\'|jsonschema', re.I)


class Cat:
    def __init__(self, gd):
        self.p = subprocess.Popen(['git', '-C', gd, 'cat-file', '--batch'], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def get(self, spec):
        self.p.stdin.write((spec + '\n').encode())
        self.p.stdin.flush()
        hdr = self.p.stdout.readline().decode()
        if hdr.endswith('missing\n'):
            return None
        size = int(hdr.split()[2])
        data = self.p.stdout.read(size)
        self.p.stdout.read(1)
        if size > 1_500_000:
            return None
        return data.decode('utf-8', 'replace')


ALLOW = {'makenotion/notion-mcp-server': re.compile(r'^scripts/notion-openapi\.json$')}
JSON_OK = re.compile(r'(openapi|tools?|manifest)[^/]*\.json$', re.I)
ONLY = {'getzep/graphiti': re.compile(r'^mcp_server/')}


def server_of(repo, path):
    if repo in ONLY and not ONLY[repo].search(path):
        return None
    if repo in ('modelcontextprotocol/servers', 'awslabs/mcp'):
        m = re.match(r'(src/[^/]+)/', path)
        return f'{repo}:{m.group(1)}' if m else None
    if repo == 'neo4j-contrib/mcp-neo4j':  # data15: monorepo, one server per servers/<name>
        m = re.match(r'(servers/[^/]+)/', path)
        return f'{repo}:{m.group(1)}' if m else repo
    return repo


def norm_key(d):
    return (d['tool'], d['field'])


def pair(old, new):
    """old/new: lists of extracted dicts. returns list of (o, n, how)."""
    from collections import Counter
    oc = Counter(d['text'] for d in old)
    nc = Counter(d['text'] for d in new)
    common = oc & nc
    rem_o, rem_n = [], []
    c1 = Counter(common)
    for d in old:
        if c1[d['text']] > 0:
            c1[d['text']] -= 1
        else:
            rem_o.append(d)
    c2 = Counter(common)
    for d in new:
        if c2[d['text']] > 0:
            c2[d['text']] -= 1
        else:
            rem_n.append(d)
    pairs = []
    if not rem_o or not rem_n:
        return pairs
    pairs = []
    # 1) unique same-key pairs (tool, field known on both sides)
    from collections import defaultdict
    ko, kn = defaultdict(list), defaultdict(list)
    for i, o in enumerate(rem_o):
        if o['field'] != 'unknown':
            ko[norm_key(o)].append(i)
    for j, n in enumerate(rem_n):
        if n['field'] != 'unknown':
            kn[norm_key(n)].append(j)
    uo, un = set(), set()
    for k, lo in ko.items():
        ln = kn.get(k, [])
        if len(lo) == 1 and len(ln) == 1:
            o, n = rem_o[lo[0]], rem_n[ln[0]]
            r = difflib.SequenceMatcher(None, o['text'], n['text'], autojunk=False).ratio() \
                if len(o['text']) + len(n['text']) < 6000 else difflib.SequenceMatcher(None, o['text'], n['text']).ratio()
            if r >= 0.2:
                uo.add(lo[0]); un.add(ln[0])
                pairs.append((o, n, 'key', r))
    # 2) similarity for the rest
    cands = []
    for i, o in enumerate(rem_o):
        if i in uo:
            continue
        for j, n in enumerate(rem_n):
            if j in un:
                continue
            sm = difflib.SequenceMatcher(None, o['text'], n['text'], autojunk=len(o['text']) + len(n['text']) > 6000)
            if sm.real_quick_ratio() < 0.3 or sm.quick_ratio() < 0.3:
                continue
            r = sm.ratio()
            same_key = o['field'] != 'unknown' and norm_key(o) == norm_key(n)
            score = r + (0.5 if same_key else 0)
            if same_key and r >= 0.2 or r >= 0.55:
                cands.append((score, i, j, same_key, r))
    cands.sort(key=lambda t: -t[0])
    for score, i, j, same_key, r in cands:
        if i in uo or j in un:
            continue
        uo.add(i)
        un.add(j)
        pairs.append((rem_o[i], rem_n[j], 'key' if same_key else 'sim', r))
    return pairs


def mine(repo):
    gd = f'{MIRROR}/{repo.replace("/", "+")}/repo'
    head = subprocess.check_output(['git', '-C', gd, 'rev-parse', 'HEAD'], text=True).strip()
    commits = subprocess.check_output(['git', '-C', gd, 'rev-list', '--first-parent', '--reverse', '--parents', 'HEAD'], text=True).split('\n')
    cat = Cat(gd)
    out = []
    for idx, line in enumerate(commits):
        parts = line.split()
        if len(parts) < 2:
            continue
        c, p = parts[0], parts[1]
        try:
            ds = subprocess.check_output(['git', '-C', gd, 'diff-tree', '-r', '-M', '--no-commit-id', '--name-status', p, c], text=True)
        except subprocess.CalledProcessError:
            continue
        for l in ds.splitlines():
            f = l.split('\t')
            st = f[0]
            if st.startswith('R'):
                if int(st[1:] or 0) < 100 and len(f) == 3:
                    op, np_ = f[1], f[2]
                else:
                    continue
            elif st == 'M':
                op = np_ = f[1]
            else:
                continue
            lg = lang_of(np_)
            if not lg or (EXCL.search(np_) and not (repo in ALLOW and ALLOW[repo].search(np_))):
                continue
            if lg == 'json' and not JSON_OK.search(np_):
                continue
            srv = server_of(repo, np_)
            if not srv:
                continue
            a = cat.get(f'{p}:{op}')
            b = cat.get(f'{c}:{np_}')
            if a is None or b is None or (lg != 'md' and not (TRIGGER.search(a) and TRIGGER.search(b))):
                continue
            ea, eb = extract(op, a), extract(np_, b)
            for o, n, how, r in pair(ea, eb):
                tool = n['tool'] or o['tool']
                field = n['field'] if n['field'] != 'unknown' else o['field']
                if how == 'sim' and o['field'] != n['field'] and 'unknown' not in (o['field'], n['field']):
                    field = 'unknown'
                out.append({'repo': repo, 'server': srv, 'commit': c, 'parent': p, 'file': np_, 'tool': tool,
                            'field': field, 'old': o['text'], 'new': n['text'],
                            'partial': bool(o['partial'] or n['partial']), 'pair': how,
                            'ratio': round(r, 3), 'order': idx})
    os.makedirs(OUT, exist_ok=True)
    with open(f'{OUT}/{repo.replace("/", "+")}.json', 'w') as fh:
        json.dump({'repo': repo, 'head': head, 'n_commits': len(commits), 'edits': out}, fh, indent=0)
    print(repo, head, len(commits), len(out), flush=True)


if __name__ == '__main__':
    for r in sys.argv[1:]:
        mine(r)
