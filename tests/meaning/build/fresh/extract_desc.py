"""Heuristic extraction of MCP tool / parameter descriptions from one source file.

extract(path, text) -> list of dicts {"tool": str|None, "field": "tool"|"param:x"|"unknown",
                                      "text": str, "partial": bool}
Languages: TypeScript/JavaScript (zod .describe, description:, server.tool("n","d")),
Python (description=, "description": , Field(description=), docstrings of @*.tool functions,
Tool(name=, description=)), Go (mcp.WithDescription, mcp.Description, MustTool("n","d"),
jsonschema:"description=..." struct tags, Description: struct fields).
"""
import re
import inspect

IDENT = r'[A-Za-z_$][\w$]*'

# ---------------------------------------------------------------- helpers

def _skip_ws(s, i, lang):
    n = len(s)
    while i < n:
        c = s[i]
        if c in ' \t\r\n':
            i += 1
        elif lang in ('js', 'go') and s.startswith('//', i):
            j = s.find('\n', i)
            i = n if j < 0 else j + 1
        elif lang in ('js', 'go') and s.startswith('/*', i):
            j = s.find('*/', i + 2)
            i = n if j < 0 else j + 2
        elif lang == 'py' and c == '#':
            j = s.find('\n', i)
            i = n if j < 0 else j + 1
        elif lang == 'py' and c == '\\' and i + 1 < n and s[i + 1] == '\n':
            i += 2
        else:
            break
    return i


_ESC = {'n': '\n', 't': '\t', 'r': '\r', '"': '"', "'": "'", '\\': '\\', '`': '`', '$': '$',
        '0': '\0', 'b': '\b', 'f': '\f', 'v': '\v', '\n': ''}


def _read_quoted(s, i, q, raw=False):
    """s[i] == q (single char quote). returns (text, end) or None."""
    out = []
    j = i + 1
    n = len(s)
    while j < n:
        c = s[j]
        if c == '\\' and not raw and j + 1 < n:
            d = s[j + 1]
            if d == 'u' and re.match(r'[0-9a-fA-F]{4}', s[j + 2:j + 6]):
                out.append(chr(int(s[j + 2:j + 6], 16)))
                j += 6
                continue
            out.append(_ESC.get(d, '\\' + d))
            j += 2
            continue
        if c == q:
            return ''.join(out), j + 1
        if c == '\n' and q != '`':
            return None
        out.append(c)
        j += 1
    return None


def _read_template(s, i):
    """JS template literal starting at s[i]=='`'. ${...} kept verbatim."""
    out = []
    j = i + 1
    n = len(s)
    while j < n:
        c = s[j]
        if c == '\\' and j + 1 < n:
            out.append(_ESC.get(s[j + 1], '\\' + s[j + 1]))
            j += 2
            continue
        if c == '`':
            return ''.join(out), j + 1
        if c == '$' and j + 1 < n and s[j + 1] == '{':
            depth = 0
            k = j + 1
            while k < n:
                if s[k] == '{':
                    depth += 1
                elif s[k] == '}':
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            out.append(s[j:k + 1])
            j = k + 1
            continue
        out.append(c)
        j += 1
    return None


def _js_literal(s, i):
    """one literal at i: returns (text, end) or None"""
    if i >= len(s):
        return None
    c = s[i]
    if c in '"\'':
        return _read_quoted(s, i, c)
    if c == '`':
        return _read_template(s, i)
    m = re.match(r'(?:dedent|outdent|stripIndent|stripIndents|endent|trim|ts|md|String\.raw)\s*`', s[i:i + 40])
    if m:
        r = _read_template(s, i + m.end() - 1)
        if r and m.group(0).startswith(('dedent', 'outdent', 'stripIndent', 'endent')):
            return inspect.cleandoc(r[0]), r[1]
        return r
    return None


def js_strexpr(s, i):
    """String expression at i: literal (+ literal)*, ( ... ), [..].join(x). -> (text, partial, end) or None"""
    i = _skip_ws(s, i, 'js')
    if i < len(s) and s[i] == '(':
        r = js_strexpr(s, i + 1)
        if r:
            return r
        return None
    if i < len(s) and s[i] == '[':
        parts = []
        j = i + 1
        while True:
            j = _skip_ws(s, j, 'js')
            if j < len(s) and s[j] == ']':
                j += 1
                break
            r = _js_literal(s, j)
            if not r:
                return None
            parts.append(r[0])
            j = _skip_ws(s, r[1], 'js')
            if j < len(s) and s[j] == ',':
                j += 1
        m = re.match(r'\s*\.join\(\s*', s[j:])
        if not m:
            return None
        k = j + m.end()
        sep = ','
        if s[k] != ')':
            r = _js_literal(s, k)
            if not r:
                return None
            sep, k = r
        return sep.join(parts), False, k
    parts = []
    partial = False
    j = i
    r = _js_literal(s, j)
    if not r:
        return None
    parts.append(r[0])
    j = r[1]
    while True:
        k = _skip_ws(s, j, 'js')
        if k < len(s) and s[k] == '+':
            k2 = _skip_ws(s, k + 1, 'js')
            r = _js_literal(s, k2)
            if r:
                parts.append(r[0])
                j = r[1]
                continue
            partial = True
            # skip an identifier/member expression and continue concatenation
            m = re.match(r'[\w$.\[\]()\'"]+', s[k2:])
            if m:
                k3 = _skip_ws(s, k2 + m.end(), 'js')
                if k3 < len(s) and s[k3] == '+':
                    j = k2 + m.end()
                    continue
            break
        break
    return ''.join(parts), partial, j


def py_strexpr(s, i):
    i = _skip_ws(s, i, 'py')
    paren = False
    if i < len(s) and s[i] == '(':
        paren = True
        i += 1
    parts = []
    partial = False
    after_plus = False
    j = i
    while True:
        j = _skip_ws(s, j, 'py') if (paren or parts) else j
        m = re.match(r'([rRuUfFbB]{0,2})("""|\'\'\'|"|\')', s[j:])
        if not m:
            if parts and after_plus:
                partial = True
            break
        after_plus = False
        pre, q = m.group(1), m.group(2)
        raw = 'r' in pre.lower()
        k = j + m.end()
        if len(q) == 3:
            e = s.find(q, k)
            if e < 0:
                return None
            body = s[k:e]
            if not raw:
                body = _py_unescape(body)
            parts.append(body)
            j = e + 3
        else:
            r = _read_quoted(s, j + len(pre), q, raw)
            if not r:
                return None
            parts.append(r[0])
            j = r[1]
        # concatenation: implicit (inside parens) or '+'
        k = _skip_ws(s, j, 'py') if paren else j
        k2 = k
        while k2 < len(s) and s[k2] in ' \t':
            k2 += 1
        if k2 < len(s) and s[k2] == '+':
            j = k2 + 1
            after_plus = True
            continue
        if paren:
            j = k
            continue
        # implicit concatenation on same line
        if re.match(r'[rRuUfF]{0,2}["\']', s[k2:k2 + 3] or ''):
            j = k2
            continue
        break
    if not parts:
        return None
    return ''.join(parts), partial, j


def _py_unescape(b):
    return re.sub(r'\\(.)', lambda m: _ESC.get(m.group(1), '\\' + m.group(1)), b, flags=re.S)


def go_strexpr(s, i):
    parts = []
    partial = False
    j = _skip_ws(s, i, 'go')
    while True:
        if j < len(s) and s[j] == '"':
            r = _read_quoted(s, j, '"')
        elif j < len(s) and s[j] == '`':
            e = s.find('`', j + 1)
            r = (s[j + 1:e], e + 1) if e > 0 else None
        else:
            r = None
        if not r:
            if parts:
                partial = True
                m = re.match(r'[\w.()]+', s[j:])
                if m:
                    k = _skip_ws(s, j + m.end(), 'go')
                    if k < len(s) and s[k] == '+':
                        j = _skip_ws(s, k + 1, 'go')
                        continue
                break
            return None
        parts.append(r[0])
        j = r[1]
        k = _skip_ws(s, j, 'go')
        if k < len(s) and s[k] == '+':
            j = _skip_ws(s, k + 1, 'go')
            continue
        break
    return ''.join(parts), partial, j

# ---------------------------------------------------------------- context


def _enclosing_open(s, i, opener='{', closer='}'):
    """index of the unmatched opener before i (ignores strings roughly)"""
    depth = 0
    j = i - 1
    pairs = {'}': '{', ']': '[', ')': '('}
    while j >= 0:
        c = s[j]
        if c in '}])':
            depth += 1
        elif c in '{[(':
            if depth == 0:
                if c == opener:
                    return j
                # keep looking outward only for the requested opener
            else:
                depth -= 1
        j -= 1
        if i - j > 20000:
            break
    return -1


NONPARAM_KEYS = {'inputSchema', 'input_schema', 'schema', 'parameters', 'annotations', 'tool', 'config',
                 'meta', '_meta', 'outputSchema', 'output_schema', 'options', 'properties', 'definition',
                 'spec', 'metadata', 'args', 'argsSchema', 'paramsSchema', 'inputs', 'toolDefinition'}

TOOL_NAME_RES = [
    re.compile(r'''(?:\.tool|registerTool|\.addTool|defineTool|createTool|MustTool|NewTool|mcp\.NewTool|server\.tool)\(\s*["'`]([\w.\-/]+)["'`]'''),
    re.compile(r'''\bname\s*[:=]\s*["'`]([\w.\-/]+)["'`]'''),
    re.compile(r'''["']name["']\s*:\s*["']([\w.\-/]+)["']'''),
]


def _enclosing_tool_name(s, i, levels=10):
    """walk outward through enclosing brackets; return tool name of the first enclosing tool
    definition (object with top-level name: "x", or call tool("x", ...)/registerTool("x", ...))."""
    pos = i
    for _ in range(levels):
        o = _enclosing_any(s, pos)
        if o < 0:
            return None
        if s[o] == '{':
            bi = _bracket_index(s)
            top = bi['top'].get(o)
            if top is None:
                close = _find_close(s, o)
                body = s[o:close if close > 0 else min(len(s), o + 20000)]
                top = _top_level(body)
                bi['top'][o] = top
            m = re.search(r'''(?<![\w$])name\s*:\s*["'`]([\w.\-/]+)["'`]''', top) or re.search(r'''["']name["']\s*:\s*["']([\w.\-/]+)["']''', top)
            if m:
                return m.group(1)
        before = s[max(0, o - 300):o + 1]
        m = re.search(r'''(?:registerTool|\.tool|defineTool|createTool|addTool|defineTabTool)\(\s*["'`]([\w.\-/]+)["'`]\s*,[\s\S]*$''', before)
        if m and s[o] == '(' :
            return m.group(1)
        m = re.search(r'''(?:registerTool|\.tool|defineTool|createTool|addTool)\(\s*$''', before[:-1])
        if s[o] == '(' and m:
            mm = re.match(r'''\(\s*["'`]([\w.\-/]+)["'`]''', s[o:o + 200])
            if mm:
                return mm.group(1)
        pos = o
    return None


def _enclosing_any(s, i):
    depth = 0
    j = i - 1
    while j >= 0 and i - j < 30000:
        c = s[j]
        if c in '}])':
            depth += 1
        elif c in '{[(':
            if depth == 0:
                return j
            depth -= 1
        j -= 1
    return -1


def _last_tool_name(s, i, window=6000):
    best = None
    best_pos = -1
    lo = max(0, i - window)
    seg = s[lo:i]
    for rx in TOOL_NAME_RES:
        for m in rx.finditer(seg):
            if m.start() > best_pos:
                best_pos, best = m.start(), m.group(1)
    return best


def _key_before(s, pos):
    """key in `key: {` or `"key": {` ending right before pos"""
    seg = s[max(0, pos - 200):pos]
    m = re.search(r'''(["']?)([\w$\-]+)\1\s*:\s*$''', seg)
    if m:
        return m.group(2)
    return None


def _js_desc_context(s, mstart):
    """context for `description:` at mstart"""
    o = _enclosing_open(s, mstart, '{')
    if o < 0:
        return None, 'unknown'
    key = _key_before(s, o)
    if key and key not in NONPARAM_KEYS:
        return _enclosing_tool_name(s, mstart), 'param:' + key
    before = s[max(0, o - 300):o]
    m = re.search(r'''(?:registerTool|\.tool|defineTool|createTool|addTool)\(\s*["'`]([\w.\-/]+)["'`]\s*,\s*$''', before)
    if m:
        return m.group(1), 'tool'
    # object containing name: "x"  -> tool definition
    close = _find_close(s, o)
    body = s[o:close if close > 0 else min(len(s), o + 5000)]
    # only look at the top level of the object for name
    top = _top_level(body)
    m = re.search(r'''\bname\s*:\s*["'`]([\w.\-/]+)["'`]''', top) or re.search(r'''["']name["']\s*:\s*["']([\w.\-/]+)["']''', top)
    if m:
        # data15: {name, description} objects inside an array under a parameter-list key (harness
        # `listFilterFields: [...]`, `params: [...]`) describe parameters, not tools
        p = _enclosing_any(s, o)
        if p >= 0 and s[p] == '[':
            akey = _key_before(s, p)
            if akey and re.search(r'(?i)(fields|params|parameters|args|arguments|inputs|filters)$', akey):
                return _enclosing_tool_name(s, p), 'param:' + m.group(1)
        return m.group(1), 'tool'
    if key in ('tool', 'definition', 'toolDefinition', 'spec', 'config'):
        return _last_tool_name(s, mstart), 'tool'
    return _enclosing_tool_name(s, mstart), 'unknown'


def _find_close(s, o):
    depth = 0
    for j in range(o, min(len(s), o + 50000)):
        c = s[j]
        if c in '{[(':
            depth += 1
        elif c in '}])':
            depth -= 1
            if depth == 0:
                return j
    return -1


def _top_level(body):
    out = []
    depth = 0
    for c in body:
        if c in '{[(':
            depth += 1
            if depth == 1:
                out.append(c)
            continue
        if c in '}])':
            depth -= 1
            continue
        if depth <= 1:
            out.append(c)
    return ''.join(out)

# ---------------------------------------------------------------- per language


def extract_js(s):
    res = []
    seen = set()

    def add(pos, tool, field, r):
        if r is None or pos in seen:
            return
        seen.add(pos)
        res.append({'tool': tool, 'field': field, 'text': r[0], 'partial': r[1], 'pos': pos})

    for m in re.finditer(r'''(?:\.tool|registerTool)\(\s*(["'`])([\w.\-/]+)\1\s*,\s*''', s):
        r = js_strexpr(s, m.end())
        if r:
            add(m.end(), m.group(2), 'tool', r)
    for m in re.finditer(r'''(?:\.tool|registerTool)\(\s*([A-Za-z_$][\w$.]*)\s*,\s*''', s):
        r = js_strexpr(s, m.end())
        if r:
            add(m.end(), None, 'tool', r)
    for m in re.finditer(r'\.describe\(\s*', s):
        r = js_strexpr(s, m.end())
        if not r:
            continue
        seg = s[max(0, m.start() - 1500):m.start()]
        # nearest `key: z.` before, not separated by a statement end
        km = None
        for km in re.finditer(r'''(["']?)([\w$\-]+)\1\s*:\s*z\s*\.''', seg):
            pass
        field = 'param:' + km.group(2) if km else 'unknown'
        add(m.end(), _enclosing_tool_name(s, m.start()), field, r)
    for m in re.finditer(r'''(?<![\w$])(["']?)description\1\s*:\s*''', s):
        r = js_strexpr(s, m.end())
        if not r:
            continue
        tool, field = _js_desc_context(s, m.start())
        add(m.end(), tool, field, r)
    return res


def extract_py(s):
    res = []
    seen = set()

    def add(pos, tool, field, r):
        if r is None or pos in seen:
            return
        seen.add(pos)
        res.append({'tool': tool, 'field': field, 'text': r[0], 'partial': r[1], 'pos': pos})

    # docstrings of tool functions
    for m in re.finditer(r'^[ \t]*(?:async\s+)?def\s+(\w+)\s*\(', s, re.M):
        # decorator block: preceding lines up to a blank line (max 30)
        lines = s[max(0, m.start() - 4000):m.start()].split('\n')[:-1]
        blk = []
        for ln in reversed(lines[-30:]):
            if not ln.strip():
                break
            blk.append(ln)
        decos = '\n'.join(reversed(blk)) + '\n'
        if '@' not in decos:
            continue
        if not re.search(r'^[ \t]*@\s*(?:\w+\.)*(?:tool|mcp_tool|register_tool|tool_handler)\s*(?:\(|$)', decos, re.M):
            continue
        # end of signature: find ':' at depth 0 after '('
        o = m.end() - 1
        c = _find_close(s, o)
        if c < 0:
            continue
        k = s.find(':', c)
        nl = s.find('\n', k)
        if k < 0 or nl < 0:
            continue
        j = _skip_ws(s, nl + 1, 'py')
        mm = re.match(r'[rRuU]?("""|\'\'\')', s[j:])
        if mm:
            q = mm.group(1)
            e = s.find(q, j + mm.end())
            if e > 0:
                body = s[j + mm.end():e]
                if not mm.group(0).lower().startswith('r'):
                    body = _py_unescape(body)
                add(j, m.group(1), 'tool', (inspect.cleandoc(body), False))
        # description= in decorator
        dm = re.search(r'description\s*=\s*', decos)
        if dm:
            off = m.start() - len(decos) + dm.end()
            r = py_strexpr(s, off)
            if r:
                add(off, m.group(1), 'tool', (inspect.cleandoc(r[0]) if '\n' in r[0] else r[0], r[1]))
    for m in re.finditer(r'(?<![\w])description\s*=\s*', s):
        r = py_strexpr(s, m.end())
        if not r:
            continue
        o = _enclosing_open(s, m.start(), '(')
        tool, field = None, 'unknown'
        if o >= 0:
            before = s[max(0, o - 400):o]
            if re.search(r'Field$', before):
                fm = None
                for fm in re.finditer(r'(\w+)\s*:\s*(?:Annotated\s*\[|[^\n=]*=\s*Field\s*$)', before):
                    pass
                if fm:
                    field = 'param:' + fm.group(1)
                tool = _py_last_def(s, m.start())
                if tool is None and field == 'param:self':
                    field = 'unknown'
            elif re.search(r'(?:FastMCP|ArgumentParser|add_parser|FastAPI|APIRouter|setup|Server|MCPServer)$', before):
                continue  # server / CLI level description, not a tool or parameter
            elif re.search(r'(?<![\w])(?:\w+\.)?Tool$', before):
                call = s[o:_find_close(s, o) + 1]
                nm = re.search(r'name\s*=\s*["\']([\w.\-]+)["\']', call)
                tool = None
                if nm:
                    tool = re.sub(r'\.value$', '', nm.group(1)).split('.')[-1]
                field = 'tool'
            elif re.search(r'(?:^|\W)@?\s*(?:\w+\.)*(?:tool|mcp_tool|register_tool)$', before):
                call = s[o:_find_close(s, o) + 1]
                nm = re.search(r'name\s*=\s*["\']([\w.\-]+)["\']', call)
                if nm:
                    tool = nm.group(1)
                else:
                    dm = re.search(r'(?:async\s+)?def\s+(\w+)', s[o:o + 20000])
                    tool = dm.group(1) if dm else None
                field = 'tool'
            elif re.search(r'Tool$', before):
                call = s[o:_find_close(s, o) + 1]
                nm = re.search(r'name\s*=\s*["\']?([\w.\-]+)', call)
                tool = nm.group(1) if nm else None
                field = 'tool'
        if '\n' in r[0]:
            r = (inspect.cleandoc(r[0]), r[1], r[2])
        add(m.end(), tool, field, r)
    for m in re.finditer(r'''["']description["']\s*:\s*''', s):
        r = py_strexpr(s, m.end())
        if not r:
            continue
        tool, field = _js_desc_context(s, m.start())
        if '\n' in r[0]:
            r = (inspect.cleandoc(r[0]), r[1], r[2])
        add(m.end(), tool, field, r)
    return res


def _py_last_def(s, i):
    # the Field must sit inside the parameter list of a `def name(`; otherwise unknown tool
    pos = i
    for _ in range(6):
        o = _enclosing_any(s, pos)
        if o < 0:
            return None
        if s[o] == '(':
            m = re.search(r'def\s+(\w+)\s*$', s[max(0, o - 200):o])
            if m:
                return m.group(1)
        pos = o
    return None


def _py_last_def_old(s, i):
    m = None
    for m in re.finditer(r'^[ \t]*(?:async\s+def|def|class)\s+(\w+)', s[max(0, i - 8000):i], re.M):
        pass
    if m and 'class' in m.group(0):
        return None
    return m.group(1) if m else None


def extract_go(s):
    res = []
    seen = set()

    def add(pos, tool, field, r):
        if r is None or pos in seen:
            return
        seen.add(pos)
        res.append({'tool': tool, 'field': field, 'text': r[0], 'partial': r[1], 'pos': pos})

    def last_tool(i):
        t = None
        for tm in re.finditer(r'(?:NewTool|MustTool|ConvertTool)\(\s*"([\w.\-]+)"', s[max(0, i - 8000):i]):
            t = tm.group(1)
        return t

    for m in re.finditer(r'(?:MustTool|ConvertTool|NewTool)\(\s*"([\w.\-]+)"\s*,\s*', s):
        r = go_strexpr(s, m.end())
        if r:
            add(m.end(), m.group(1), 'tool', r)
    for m in re.finditer(r'WithDescription\(\s*', s):
        r = go_strexpr(s, m.end())
        if r:
            add(m.end(), last_tool(m.start()), 'tool', r)
    for m in re.finditer(r'(?<![\w])Description\(\s*', s):
        r = go_strexpr(s, m.end())
        if not r:
            continue
        pm = None
        for pm in re.finditer(r'With(?:String|Number|Boolean|Array|Object|Integer|Any)\w*\(\s*"([\w.\-]+)"', s[max(0, m.start() - 3000):m.start()]):
            pass
        add(m.end(), last_tool(m.start()), 'param:' + pm.group(1) if pm else 'unknown', r)
    for m in re.finditer(r'(?<![\w])Description\s*:\s*', s):
        r = go_strexpr(s, m.end())
        if not r:
            continue
        o = _enclosing_open(s, m.start(), '{')
        before = s[max(0, o - 200):o] if o >= 0 else ''
        field = 'unknown'
        tool = last_tool(m.start())
        body = s[o:_find_close(s, o)] if o >= 0 else ''
        nm = re.search(r'\bName\s*:\s*"([\w.\-]+)"', _top_level(body))
        if re.search(r'Tool\s*$', before) or nm:
            field = 'tool'
            if nm:
                tool = nm.group(1)
        add(m.end(), tool, field, r)
    # struct tags: `json:"name,omitempty" jsonschema:"required,description=..."`
    for m in re.finditer(r'`([^`\n]*jsonschema(?:_description)?:"[^`\n]*)`', s):
        tag = m.group(1)
        jm = re.search(r'json:"([\w\-]+)', tag)
        dm = re.search(r'jsonschema:"((?:[^"\\]|\\.)*)"', tag)
        text = None
        if dm:
            val = dm.group(1)
            idx = val.find('description=')
            if idx >= 0:
                d = val[idx + len('description='):]
                # up to next unescaped comma followed by key=
                parts = re.split(r'(?<!\\),(?=\w+=)', d)
                text = parts[0].replace('\\\\,', ',').replace('\\,', ',').replace('\\"', '"')
        dm2 = re.search(r'jsonschema_description:"((?:[^"\\]|\\.)*)"', tag)
        if dm2:
            text = dm2.group(1).replace('\\"', '"')
        if text:
            add(m.start(), None, 'param:' + jm.group(1) if jm else 'unknown', (text, False))
    return res


def lang_of(path):
    p = path.lower()
    if p.endswith(('.ts', '.tsx', '.js', '.mjs', '.cjs', '.mts')) and not p.endswith('.d.ts'):
        return 'js'
    if p.endswith('.py'):
        return 'py'
    if p.endswith('.go'):
        return 'go'
    return None


def extract(path, text):
    lang = lang_of(path)
    try:
        if lang == 'js':
            return extract_js(text)
        if lang == 'py':
            return extract_py(text)
        if lang == 'go':
            return extract_go(text)
    except RecursionError:
        return []
    return []


# ---------------------------------------------------------------- JSON (tools/list snapshots, OpenAPI specs, manifests)
import json as _json

JSON_SKIP = re.compile(r'(^|/)(package(-lock)?\.json|tsconfig[^/]*\.json|\.eslintrc[^/]*|[^/]*lock[^/]*\.json|'
                       r'\.vscode/.*|\.devcontainer/.*|renovate\.json|biome\.json|\.prettierrc[^/]*)$')


def extract_json(path, s):
    if JSON_SKIP.search(path):
        return []
    try:
        doc = _json.loads(s)
    except Exception:
        return []
    res = []

    def walk(node, keys, tool):
        if isinstance(node, dict):
            t = tool
            if isinstance(node.get('operationId'), str):
                t = node['operationId']
            elif isinstance(node.get('name'), str) and ('inputSchema' in node or 'input_schema' in node or 'parameters' in node
                                                        or (len(keys) >= 2 and keys[-2] == 'tools')):  # data15: DXT manifest tools[]
                t = node['name']
            for k, v in node.items():
                if k in ('user_config', 'server', 'author', 'repository'):  # data15: DXT manifest config, not tools
                    continue
                if k == 'description' and isinstance(v, str) and keys:
                    field = 'unknown'
                    if len(keys) >= 2 and keys[-2] == 'properties':
                        field = 'param:' + keys[-1]
                    elif isinstance(node.get('name'), str) and ('in' in node):  # OpenAPI parameter object
                        field = 'param:' + node['name']
                    elif t is not None and (node.get('operationId') == t or node.get('name') == t):
                        field = 'tool'
                    res.append({'tool': t, 'field': field, 'text': v, 'partial': False,
                                'pos': '/'.join(map(str, keys))})
                else:
                    walk(v, keys + [k], t)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, keys + [i], tool)

    walk(doc, [], None)
    return res


_extract_code = extract


def extract(path, text):
    if path.lower().endswith('.json'):
        return extract_json(path, text)
    return _extract_code(path, text)


_lang_of_code = lang_of


def lang_of(path):
    if path.lower().endswith('.json') and not JSON_SKIP.search(path):
        return 'json'
    return _lang_of_code(path)


# ---------------------------------------------------------------- speed-ups: bracket index per file
_BC = {'s': None}


def _bracket_index(s):
    if _BC['s'] is s:
        return _BC
    n = len(s)
    enc = [-1] * (n + 1)
    close = {}
    stack = []
    for i, c in enumerate(s):
        enc[i] = stack[-1] if stack else -1
        if c in '{[(':
            stack.append(i)
        elif c in '}])':
            if stack:
                close[stack.pop()] = i
    enc[n] = stack[-1] if stack else -1
    _BC.clear()
    _BC.update({'s': s, 'enc': enc, 'close': close, 'top': {}})
    return _BC


def _enclosing_any(s, i):  # noqa: F811  (overrides the slow version)
    return _bracket_index(s)['enc'][i] if i < len(s) + 1 else -1


def _find_close(s, o):  # noqa: F811
    bi = _bracket_index(s)
    return bi['close'].get(o, -1)


_top_level_slow = _top_level


# ---------------------------------------------------------------- C# / Java (added for data15)
def _cj_textblock(s, i, q3):
    """s[i:i+len(q3)] == q3 (\"\"\" or more). C# raw string / Java text block -> (text, end)"""
    j = s.find(q3, i + len(q3))
    if j < 0:
        return None
    body = s[i + len(q3):j]
    if '\n' not in body:
        return body, j + len(q3)
    lines = body.split('\n')
    # first line (after opening quotes) is empty for multi-line form
    if lines and not lines[0].strip():
        lines = lines[1:]
    last = lines[-1] if lines else ''
    if lines and not last.strip():
        # closing delimiter on its own line: its indentation is removed (C#); Java: common indentation
        ind = len(last)
        lines = lines[:-1]
    else:
        ind = None
    nonblank = [l for l in lines if l.strip()]
    common = min((len(l) - len(l.lstrip()) for l in nonblank), default=0)
    if ind is None or ind > common:
        ind = common
    txt = '\n'.join(l[ind:].rstrip() if len(l) >= ind else l.strip() for l in lines)
    txt = txt.replace('\\\n', '')  # Java line continuation
    return txt, j + len(q3)


def _cj_literal(s, i):
    n = len(s)
    m = re.match(r'(\$*)(@?)(\$*)("+)', s[i:i + 12])
    if not m:
        return None
    dollars = m.group(1) + m.group(3)
    verb = bool(m.group(2))
    q = m.group(4)
    st = i + len(m.group(1)) + len(m.group(2)) + len(m.group(3))
    if len(q) >= 3:
        return _cj_textblock(s, st, q)
    if len(q) == 2 and not verb:  # empty string ""
        return '', st + 2
    if verb:
        out, j = [], st + 1
        while j < n:
            if s[j] == '"':
                if j + 1 < n and s[j + 1] == '"':
                    out.append('"'); j += 2; continue
                return ''.join(out), j + 1
            out.append(s[j]); j += 1
        return None
    return _read_quoted(s, st, '"')


def cj_strexpr(s, i, lang='js'):
    """literal (+ literal | + IDENT)*; identifiers make the result partial. -> (text, partial, end)"""
    i = _skip_ws(s, i, 'js')
    parts, partial, got = [], False, False
    while True:
        i = _skip_ws(s, i, 'js')
        r = _cj_literal(s, i)
        if r:
            parts.append(r[0]); i = r[1]; got = True
        else:
            m = re.match(r'[A-Za-z_][\w.]*(?:\(\))?', s[i:i + 200])
            if m and got:
                partial = True; i += m.end()
            else:
                break
        j = _skip_ws(s, i, 'js')
        if j < len(s) and s[j] == '+':
            i = j + 1
            continue
        i = j
        break
    if not got:
        return None
    return ''.join(parts), partial, i


def _skip_arg(s, i):
    """skip one call argument starting at i; returns index after the following top-level comma or None"""
    depth = 0
    n = len(s)
    while i < n:
        c = s[i]
        if c == '"':
            r = _cj_literal(s, i)
            if not r:
                return None
            i = r[1]; continue
        if c in '([{':
            depth += 1
        elif c in ')]}':
            if depth == 0:
                return None
            depth -= 1
        elif c == ',' and depth == 0:
            return i + 1
        elif c == ';' and depth == 0:
            return None
        i += 1
    return None


def extract_cs(s):
    res, seen = [], set()

    def add(pos, tool, field, r):
        if r is None or pos in seen:
            return
        seen.add(pos)
        res.append({'tool': tool, 'field': field, 'text': r[0], 'partial': r[1], 'pos': pos})

    nm = re.search(r'\bName\s*=>\s*"([^"]+)"', s)
    cm = re.search(r'\bclass\s+(\w+)', s)
    tool = (cm.group(1) if cm else '') + (':' + nm.group(1) if nm else '') or None
    for m in re.finditer(r'(?:\bstring\s+Description\s*=>|GetCommandDescription\(\)\s*=>|\bstring\s+Description\s*\{\s*get\s*;?\s*\}\s*=)\s*', s):
        add(m.end(), tool, 'tool', cj_strexpr(s, m.end()))
    for m in re.finditer(r'(?:Option|ArgumentDefinition)<[^;=]*?>\s+(\w+)\s*=\s*new(?:\s+(?:Option|ArgumentDefinition)<[^;(]*?>)?\s*\(\s*', s):
        j = _skip_arg(s, m.end())
        if j is not None:
            r = cj_strexpr(s, j)
            if r:
                add(j, tool, 'param:' + m.group(1), r)
        # object initializer Description = "..."
        k = s.find(';', m.end())
        seg_end = k if k > 0 else len(s)
        for dm in re.finditer(r'\bDescription\s*=\s*', s[m.end():seg_end]):
            p = m.end() + dm.end()
            add(p, tool, 'param:' + m.group(1), cj_strexpr(s, p))
    for m in re.finditer(r'\[(?:[\w.]+\s*,\s*)*Description\(\s*', s):
        add(m.end(), tool, 'unknown', cj_strexpr(s, m.end()))
    return res


def extract_java(s):
    res, seen = [], set()

    def add(pos, tool, field, r):
        if r is None or pos in seen:
            return
        seen.add(pos)
        res.append({'tool': tool, 'field': field, 'text': r[0], 'partial': r[1], 'pos': pos})

    tm = re.search(r'TOOL_NAME\s*=\s*"([^"]+)"', s)
    cm = re.search(r'\bclass\s+(\w+)', s)
    tool = tm.group(1) if tm else (cm.group(1) if cm else None)
    for m in re.finditer(r'\.(?:setDescription|description)\(\s*', s):
        add(m.end(), tool, 'tool', cj_strexpr(s, m.end()))
    for m in re.finditer(r'\.add\w*Property\(\s*', s):
        # args: NAME, [type,] description  -> take the last string-literal argument
        i = m.end()
        nm = re.match(r'"?([\w.]+)"?', s[i:])
        pname = nm.group(1).split('.')[-1] if nm else '?'
        last = None
        while True:
            j = _skip_arg(s, i)
            if j is None:
                break
            r = cj_strexpr(s, j)
            if r and r[2] < len(s) and s[_skip_ws(s, r[2], 'js')] in '),':
                last = (j, r)
            i = j
        if last:
            add(last[0], tool, 'param:' + pname, last[1])
    for m in re.finditer(r'static\s+final\s+String\s+(\w*DESCRIPTION\w*)\s*=\s*', s):
        add(m.end(), tool, 'unknown', cj_strexpr(s, m.end()))
    return res


# ---------------------------------------------------------------- markdown prompt files (dbt-mcp style: one .md per tool)
MD_TOOL_FILE = re.compile(r'(^|/)prompts/.*\.md$')


def extract_md(path, s):
    stem = path.rsplit('/', 1)[-1][:-3]
    t = s.strip()
    if not t:
        return []
    if '/args/' in path:  # dbt-mcp: prompts/<area>/args/<param>.md hold parameter descriptions
        return [{'tool': None, 'field': 'param:' + stem, 'text': t, 'partial': False, 'pos': 0}]
    return [{'tool': stem, 'field': 'tool', 'text': t, 'partial': False, 'pos': 0}]


_lang_of_v2 = lang_of
_extract_v2 = extract


def lang_of(path):  # noqa: F811
    p = path.lower()
    if p.endswith('.cs'):
        return 'cs'
    if p.endswith('.java'):
        return 'java'
    if MD_TOOL_FILE.search(path):
        return 'md'
    return _lang_of_v2(path)


def extract(path, text):  # noqa: F811
    lang = lang_of(path)
    try:
        if lang == 'cs':
            return extract_cs(text)
        if lang == 'java':
            return extract_java(text)
        if lang == 'md':
            return extract_md(path, text)
    except RecursionError:
        return []
    return _extract_v2(path, text)
