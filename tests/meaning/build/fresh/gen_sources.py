"""Write /work/data15/SOURCES.md from build_stats.json + edits.json (plus hand-written notes in
scripts/sources_notes.md, appended verbatim)."""
import json, os, collections

BASE = '/work/data15'
st = json.load(open(f'{BASE}/build_stats.json'))
ed = json.load(open(f'{BASE}/edits.json'))
per_server = collections.Counter(e['server'] for e in ed)
per_repo = collections.Counter(e['repo'] for e in ed)
L = []
L.append('# SOURCES of the description-edit evaluation set (edits.json, data15, held out)\n')
L.append(f'Total edits: **{len(ed)}** from **{len(per_server)}** servers in **{len(per_repo)}** repositories.\n')
L.append('Rebuild: `python3 scripts/mine.py owner/name ...` (per repository, writes raw/), then '
         '`python3 scripts/build.py` then `python3 scripts/gen_sources.py`. Mirrors are the bare git dirs '
         '`/work/.mirror/<owner>+<name>/repo` from the `fetch` tool; history = `git rev-list --first-parent HEAD`, '
         'each commit diffed against its first parent (`git diff-tree -r -M`).\n')
L.append('## Repositories\n')
L.append('| repository | mirror HEAD | first-parent commits | raw candidates | after filter+dedup | in set |')
L.append('|---|---|---|---|---|---|')
raw_meta = {}
for f in os.listdir(f'{BASE}/raw'):
    d = json.load(open(f'{BASE}/raw/{f}'))
    raw_meta[d['repo']] = d['n_commits']
for r, v in st['per_repo'].items():
    L.append(f"| {r} | `{v['head']}` | {raw_meta.get(r, '?')} | {v['raw']} | {v['after_filter']} | {per_repo.get(r, 0)} |")
L.append('\n## File patterns (where the kept edits come from: directory/*.extension, edits)\n')
pat = collections.defaultdict(collections.Counter)
for e in ed:
    d, _, f = e['file'].rpartition('/')
    ext = f.rsplit('.', 1)[-1] if '.' in f else f
    pat[e['repo']][(d or '.') + '/*.' + ext] += 1
for r in sorted(pat):
    L.append(f"- {r}: " + ', '.join(f'`{k}` ({n})' for k, n in pat[r].most_common(8)) +
             (f', … {len(pat[r]) - 8} more' if len(pat[r]) > 8 else ''))
L.append('\n## Servers (cap 60 each, spread over commits, cosmetic share <= 10%)\n')
L.append('| server | edits in set | available after filter | cosmetic available | cosmetic kept |')
L.append('|---|---|---|---|---|')
for s, v in st['per_server'].items():
    if v['kept'] == 0:
        continue
    L.append(f"| {s} | {v['kept']} | {v['available']} | {v['cosmetic_available']} | {v['cosmetic_kept']} |")
L.append('\n## Drop counts in build.py\n')
for k, v in st['dropped'].items():
    L.append(f'- {k}: {v}')
L.append('')
notes = f'{BASE}/scripts/sources_notes.md'
if os.path.exists(notes):
    L.append(open(notes).read())
open(f'{BASE}/SOURCES.md', 'w').write('\n'.join(L) + '\n')
print('ok')
