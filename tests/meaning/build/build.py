"""Filter, dedup, cap, split and chunk the raw candidates from mine.py.
usage: python3 build.py   (reads /work/data14/raw/*.json, writes edits.json, chunks/, build_stats.json)
"""
import json, os, re, glob, hashlib, random, math

BASE = '/work/data14'
CAP = 70
COSMETIC_SHARE = 0.10
# processing order (first kept on duplicates)
ORDER = ['modelcontextprotocol/servers', 'microsoft/playwright-mcp', 'grafana/mcp-grafana',
         'mongodb-js/mongodb-mcp-server', 'sooperset/mcp-atlassian', 'supabase-community/supabase-mcp',
         'hashicorp/terraform-mcp-server', 'mendableai/firecrawl-mcp-server', 'makenotion/notion-mcp-server',
         'elastic/mcp-server-elasticsearch', 'brave/brave-search-mcp-server', 'upstash/context7',
         'microsoft/azure-devops-mcp', 'exa-labs/exa-mcp-server', 'qdrant/mcp-server-qdrant',
         'neondatabase/mcp-server-neon', 'wonderwhy-er/DesktopCommanderMCP', 'redis/mcp-redis',
         'tavily-ai/tavily-mcp', 'browserbase/mcp-server-browserbase', 'chroma-core/chroma-mcp',
         'heroku/heroku-mcp-server', 'GLips/Figma-Context-MCP', 'motherduckdb/mcp-server-motherduck',
         'executeautomation/mcp-playwright', 'line/line-bot-mcp-server']
# files found by hand to hold non-tool descriptions (web-site metadata, CLI/config options, server config schema)
EXCLUDE_FILES = re.compile(r'(^app/layout\.tsx$|/config/userConfig\.ts$|^src/config\.ts$|^src/bin\.ts$|well-known-mcp-config\.ts$)')
FORBIDDEN = {'github/github-mcp-server', 'getsentry/sentry-mcp'}

CODE_RX = re.compile(r'=>|\bfunction\s*\(|===|!==|\bconst\s+\w+\s*=|\blet\s+\w+\s*=|^\s*import\s.*\bfrom\b|'
                     r'\bawait\s+[\w.]+\(|\(\s*\)\s*\{|\$\{[^}]*[?(\n]|\bself\.\w+\(|^\s*(?:if|for|while)\s*\(.*\)\s*\{', re.M)
IDENT_ONLY = re.compile(r'^[\w./:${}-]+$')


def words(s):
    return [w for w in s.split() if re.search(r'[A-Za-z]', w)]


def is_text(s):
    s2 = s.strip()
    if len(words(s2)) < 2:
        return False
    if CODE_RX.search(s2) or IDENT_ONLY.match(s2):
        return False
    letters = sum(ch.isalpha() or ch.isspace() for ch in s2)
    if letters / max(1, len(s2)) < 0.45:
        return False
    # mostly template interpolation
    if len(re.sub(r'\$\{[^}]*\}', '', s2).split()) < 2:
        return False
    return True


def cosmetic(o, n):
    k = lambda s: re.sub(r'[\W_]+', '', s.lower())
    return k(o) == k(n)


def spread(lst, k):
    if k >= len(lst):
        return list(lst)
    if k <= 0:
        return []
    if k == 1:
        return [lst[len(lst) // 2]]
    idx = sorted({round(i * (len(lst) - 1) / (k - 1)) for i in range(k)})
    i = 0
    while len(idx) < k:  # fill rounding collisions
        if i not in idx:
            idx.append(i)
        i += 1
    return [lst[i] for i in sorted(idx)]


def main():
    raws = {}
    for f in glob.glob(f'{BASE}/raw/*.json'):
        d = json.load(open(f))
        raws[d['repo']] = d
    order = [r for r in ORDER if r in raws] + sorted(r for r in raws if r not in ORDER)
    stats = {'per_repo': {}, 'dropped': {}}
    seen = set()
    by_server = {}
    server_order = []
    for repo in order:
        if repo in FORBIDDEN:
            continue
        d = raws[repo]
        kept = 0
        for e in sorted(d['edits'], key=lambda e: e['order']):
            o, n = e['old'].strip('\n'), e['new'].strip('\n')
            if EXCLUDE_FILES.search(e['file']):
                stats['dropped']['non_tool_file'] = stats['dropped'].get('non_tool_file', 0) + 1
                continue
            if o == n:
                stats['dropped']['same'] = stats['dropped'].get('same', 0) + 1
                continue
            if not (is_text(o) and is_text(n)):
                stats['dropped']['not_text'] = stats['dropped'].get('not_text', 0) + 1
                continue
            frag = e['partial']
            if frag and (len(words(o)) < 4 or len(words(n)) < 4):
                stats['dropped']['short_fragment'] = stats['dropped'].get('short_fragment', 0) + 1
                continue
            key = (o, n)
            if key in seen:
                stats['dropped']['duplicate'] = stats['dropped'].get('duplicate', 0) + 1
                continue
            seen.add(key)
            e2 = dict(e, old=o, new=n, fragment=bool(frag), cosmetic=cosmetic(o, n))
            s = e['server']
            if s not in by_server:
                by_server[s] = []
                server_order.append(s)
            by_server[s].append(e2)
            kept += 1
        stats['per_repo'][repo] = {'head': d['head'], 'raw': len(d['edits']), 'after_filter': kept}
    final = []
    stats['per_server'] = {}
    for s in server_order:
        lst = by_server[s]
        cos = [e for e in lst if e['cosmetic']]
        non = [e for e in lst if not e['cosmetic']]
        T = min(CAP, len(lst))
        while True:
            ac = min(len(cos), math.floor(T * COSMETIC_SHARE))
            nt = min(len(non), T - ac)
            if nt + ac == T:
                break
            T = nt + ac
        chosen = spread(non, nt) + spread(cos, ac)
        chosen.sort(key=lambda e: (e['order'], e['file']))
        stats['per_server'][s] = {'available': len(lst), 'cosmetic_available': len(cos), 'kept': len(chosen),
                                  'cosmetic_kept': ac}
        final.extend(chosen)
    # split by server
    counts = {}
    for e in final:
        counts[e['server']] = counts.get(e['server'], 0) + 1
    total = len(final)
    hold = []
    hn = 0
    for s in sorted(counts, key=lambda s: hashlib.sha256(s.encode()).hexdigest()):
        if hn >= 0.4 * total:
            break
        hold.append(s)
        hn += counts[s]
    out = []
    for i, e in enumerate(final, 1):
        out.append({'id': f'e{i:04d}', 'repo': e['repo'], 'server': e['server'], 'commit': e['commit'],
                    'parent': e['parent'], 'file': e['file'], 'tool': e['tool'], 'field': e['field'],
                    'old': e['old'], 'new': e['new'], 'fragment': e['fragment'],
                    'split': 'holdout' if e['server'] in hold else 'dev'})
    json.dump(out, open(f'{BASE}/edits.json', 'w'), indent=1, ensure_ascii=False)
    # chunks
    lst = [{'id': e['id'], 'old': e['old'], 'new': e['new'], 'field': e['field'], 'tool': e['tool']} for e in out]
    random.Random(14).shuffle(lst)
    os.makedirs(f'{BASE}/chunks', exist_ok=True)
    k = 4
    for c in range(k):
        part = lst[c * len(lst) // k:(c + 1) * len(lst) // k]
        json.dump(part, open(f'{BASE}/chunks/chunk{c + 1}.json', 'w'), indent=1, ensure_ascii=False)
    stats['total'] = total
    stats['holdout_servers'] = hold
    stats['holdout_n'] = hn
    stats['dev_servers'] = [s for s in counts if s not in hold]
    stats['sha_order'] = [(s, hashlib.sha256(s.encode()).hexdigest()[:12], counts[s]) for s in
                          sorted(counts, key=lambda s: hashlib.sha256(s.encode()).hexdigest())]
    json.dump(stats, open(f'{BASE}/build_stats.json', 'w'), indent=1)
    print(json.dumps({k: v for k, v in stats.items() if k != 'per_repo'}, indent=1))


if __name__ == '__main__':
    main()
