"""Filter, dedup, cap, split and chunk the raw candidates from mine.py.
usage: python3 build.py   (reads /work/data15/raw/*.json, writes edits.json, chunks/, build_stats.json)
"""
import json, os, re, glob, hashlib, random, math

BASE = '/work/data15'
CAP = 60
COSMETIC_SHARE = 0.10
# processing order (first kept on duplicates)
ORDER = []  # data15: repositories processed in sorted order
# files found by hand to hold non-tool descriptions (web-site metadata, CLI/config options, server config schema)
EXCLUDE_FILES = re.compile(r'(^app/layout\.tsx$|/config/userConfig\.ts$|^src/config\.ts$|^src/bin\.ts$|well-known-mcp-config\.ts$|'
                           r'(^|/)prompts/mcp/server_instructions\.md$|(^|/)src/prompts/[^/]*\.[jt]s$|^eng/|^pkg/metrics/|'
                           r'^pkg/toolsets/toolsets\.go$|^src/solidlsp/|semantic-similarity-engine\.ts$|'
                           r'/resources/prompts/|^src/keboola_mcp_server/tools/.*model\.py$|^integrations/anthropic/manifest\.json$|'
                           r'^src/data/schemas/|(^|/)zscaler_mcp/common/toolsets\.py$)')
# data15: per-repository files holding server (not tool) descriptions
EXCLUDE_REPO_FILES = {'jina-ai/MCP': re.compile(r'^src/index\.ts$')}
# data15: pairs found mis-paired by hand (two different parameters), dropped by (old, new)
HAND_DROP = {('ID(s) of the instance(s) to retrieve', 'ID of the instance to delete')}
SIM_MIN = 0.65  # data15: pairs matched by similarity only (no shared tool/field key) need this ratio
FORBIDDEN = set('''GLips/Figma-Context-MCP awslabs/mcp brave/brave-search-mcp-server browserbase/mcp-server-browserbase
chroma-core/chroma-mcp cloudflare/mcp-server-cloudflare elastic/mcp-server-elasticsearch
exa-labs/exa-mcp-server executeautomation/mcp-playwright getzep/graphiti grafana/mcp-grafana
hashicorp/terraform-mcp-server heroku/heroku-mcp-server line/line-bot-mcp-server makenotion/notion-mcp-server
mendableai/firecrawl-mcp-server microsoft/azure-devops-mcp microsoft/playwright-mcp modelcontextprotocol/servers
mongodb-js/mongodb-mcp-server motherduckdb/mcp-server-motherduck neondatabase/mcp-server-neon pulumi/mcp-server
qdrant/mcp-server-qdrant redis/mcp-redis sooperset/mcp-atlassian stripe/agent-toolkit
supabase-community/supabase-mcp tavily-ai/tavily-mcp upstash/context7 wonderwhy-er/DesktopCommanderMCP
zcaceres/fetch-mcp github/github-mcp-server getsentry/sentry-mcp'''.split())

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


INTERP = re.compile(r'\$?\{[^{}\n]*\}')


def interp_only(o, n):
    """old and new differ only inside {..} / ${..} interpolations (code reference renames, not text edits)"""
    return INTERP.sub('{}', o) == INTERP.sub('{}', n)


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


def spread_commits(lst, k):
    """data15: pick k edits spread over commits: first one edit per commit (spread over history if there are
    more commits than k), then a second edit per commit, and so on, so one bulk commit cannot fill the cap."""
    if k >= len(lst):
        return list(lst)
    groups = {}
    for e in lst:
        groups.setdefault(e['commit'], []).append(e)
    gl = list(groups.values())
    chosen, level = [], 0
    while len(chosen) < k:
        layer = [g[level] for g in gl if len(g) > level]
        if not layer:
            break
        need = k - len(chosen)
        chosen += spread(layer, need) if len(layer) > need else layer
        level += 1
    return chosen


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
            # data15: docstrings opened with four quotes leave a stray leading quote
            o = o[2:] if o.startswith('"\n') else o
            n = n[2:] if n.startswith('"\n') else n
            if (o, n) in HAND_DROP:
                stats['dropped']['hand_mispair'] = stats['dropped'].get('hand_mispair', 0) + 1
                continue
            if e.get('pair') == 'sim' and e.get('ratio', 1) < SIM_MIN:
                stats['dropped']['weak_similarity_pair'] = stats['dropped'].get('weak_similarity_pair', 0) + 1
                continue
            if EXCLUDE_FILES.search(e['file']) or (repo in EXCLUDE_REPO_FILES and EXCLUDE_REPO_FILES[repo].search(e['file'])):
                stats['dropped']['non_tool_file'] = stats['dropped'].get('non_tool_file', 0) + 1
                continue
            if o == n:
                stats['dropped']['same'] = stats['dropped'].get('same', 0) + 1
                continue
            if interp_only(o, n):
                stats['dropped']['interpolation_only'] = stats['dropped'].get('interpolation_only', 0) + 1
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
        chosen = spread_commits(non, nt) + spread_commits(cos, ac)
        chosen.sort(key=lambda e: (e['order'], e['file']))
        stats['per_server'][s] = {'available': len(lst), 'cosmetic_available': len(cos), 'kept': len(chosen),
                                  'cosmetic_kept': ac}
        final.extend(chosen)
    total = len(final)
    out = []
    for i, e in enumerate(final, 1):
        out.append({'id': f'f{i:04d}', 'repo': e['repo'], 'server': e['server'], 'commit': e['commit'],
                    'parent': e['parent'], 'file': e['file'], 'tool': e['tool'], 'field': e['field'],
                    'old': e['old'], 'new': e['new'], 'fragment': e['fragment']})
    json.dump(out, open(f'{BASE}/edits.json', 'w'), indent=1, ensure_ascii=False)
    # chunks: 4 shuffled parts (Random(15)); overlap: 10 random ids per chunk (Random(151))
    lst = [{'id': e['id'], 'old': e['old'], 'new': e['new'], 'field': e['field'], 'tool': e['tool']} for e in out]
    random.Random(15).shuffle(lst)
    os.makedirs(f'{BASE}/chunks', exist_ok=True)
    k = 4
    rng = random.Random(151)
    overlap = []
    for c in range(k):
        part = lst[c * len(lst) // k:(c + 1) * len(lst) // k]
        json.dump(part, open(f'{BASE}/chunks/chunk{c + 1}.json', 'w'), indent=1, ensure_ascii=False)
        overlap.extend(rng.sample(part, 10))
    json.dump(overlap, open(f'{BASE}/chunks/overlap.json', 'w'), indent=1, ensure_ascii=False)
    stats['total'] = total
    json.dump(stats, open(f'{BASE}/build_stats.json', 'w'), indent=1)
    print(json.dumps({k: v for k, v in stats.items() if k != 'per_repo'}, indent=1))


if __name__ == '__main__':
    main()
