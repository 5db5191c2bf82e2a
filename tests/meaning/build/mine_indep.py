# Description edits between consecutive snapshots of the two reserved repositories.
import json, subprocess, hashlib
def git(repo,*a): return subprocess.run(['git','-C',repo,*a],capture_output=True,text=True).stdout
def descs(tool, prefix=''):
    out={}
    if isinstance(tool.get('description'),str): out['tool']=tool['description']
    def walk(s,path):
        if not isinstance(s,dict): return
        for k,v in (s.get('properties') or {}).items():
            if isinstance(v,dict):
                d=v.get('description')
                if not isinstance(d,str):
                    for br in (v.get('anyOf') or v.get('oneOf') or []):
                        if isinstance(br,dict) and isinstance(br.get('description'),str): d=br['description']
                if isinstance(d,str): out['param:'+path+k]=d
                walk(v,path+k+'.')
    walk(tool.get('inputSchema') or {}, '')
    return out
edits=[]; seen=set()
def add(repo,server,commit,parent,file,tool,a,b):
    for f in set(a)&set(b):
        if a[f]!=b[f] and (a[f],b[f]) not in seen:
            seen.add((a[f],b[f]))
            edits.append(dict(repo=repo,server=server,commit=commit,parent=parent,file=file,tool=tool,field=f,old=a[f],new=b[f]))
# github: consecutive release tags with toolsnaps
gh='/work/.mirror/github+github-mcp-server/repo'
tags=[t for t in git(gh,'tag','--sort=version:refname').split() if t.startswith('v') and '-' not in t]
prev=None
for t in tags:
    files=[f for f in git(gh,'ls-tree','-r','--name-only',t).split('\n') if '__toolsnaps__' in f and f.endswith('.snap')]
    if not files: continue
    snap={}
    for f in files:
        try: tool=json.loads(git(gh,'show',f'{t}:{f}'))
        except Exception: continue
        if isinstance(tool,dict) and isinstance(tool.get('name'),str): snap[tool['name']]=(f,descs(tool))
    if prev:
        pt,ps=prev
        for name,(f,d) in snap.items():
            if name in ps: add('github/github-mcp-server','github/github-mcp-server',git(gh,'rev-list','-n1',t).strip(),git(gh,'rev-list','-n1',pt).strip(),f,name,ps[name][1],d)
    prev=(t,snap)
# sentry: consecutive first-parent commits touching toolDefinitions.json
se='/work/.mirror/getsentry+sentry-mcp/repo'
path='packages/mcp-core/src/toolDefinitions.json'
commits=git(se,'log','--first-parent','--format=%H','--reverse','--',path).split()
prev=None
for c in commits:
    try: data=json.loads(git(se,'show',f'{c}:{path}'))
    except Exception: continue
    tools=data if isinstance(data,list) else data.get('tools',[])
    snap={t['name']:descs(t) for t in tools if isinstance(t,dict) and isinstance(t.get('name'),str)}
    if prev:
        pc,ps=prev
        for n,d in snap.items():
            if n in ps: add('getsentry/sentry-mcp','getsentry/sentry-mcp',c,pc,path,n,ps[n],d)
    prev=(c,snap)
for i,e in enumerate(edits): e['id']=f'i{i+1:04d}'; e['split']='independent'
json.dump(edits,open('indep.json','w'),indent=1,ensure_ascii=False)
from collections import Counter
print(len(edits), Counter(e['server'] for e in edits))
