#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""errcode-check.py TREE: ERR() codes compared with plain errnos, or handed on.

A unique code made by ERR() counts as its class only for error_class() and
error_matches(): "err == -EINVAL" is false for it. This finds, in a kernel
tree, every place where what a converted function returned is compared with
"==", "!=" or a "case" label against a plain errno of a class that ERR()
sites make.

1. The seeds: functions that make ERR() codes (an ERR() of their own, or
   invalf() and the other helpers of <linux/fs_context.h>, where that
   header builds them on it).
2. Round by round, the functions that may return what a known one
   returned: "return f(...)", "return ERR_PTR(f(...))", a variable set
   from f(...) and returned; the fields of operation tables that hold a
   known function (their calls count as calls of it); and the functions
   a known one of the same file is handed to as an argument. The chains are followed
   through the directories that hold a seed and through the core ones
   every system call passes (fs/, init/, kernel/, mm/, security/,
   block/, ipc/, net/core/, and io_uring/, which calls the same file
   operations and VFS helpers): a name found there is taken in every file of
   them, so a static function's namesakes count too, which can add
   findings, never lose one. Function bodies are found as the kernel's
   coding style writes them, opening and closing braces in the first
   column.
3. The comparisons, by a Coccinelle semantic patch (compare.cocci.in):
   what any of them returned, in a variable or directly, compared with a
   plain errno of a class the seeds make. It runs on the functions that
   call one of them and mention such an errno.

4. The boundaries that hand an error number on without a system call
   return, which converts codes (sink.cocci.in): a netlink error message,
   a socket's sk_err, a mapping's writeback error (errseq), a fanotify
   error event, nfsd's and the block layer's errno tables, ext4's error
   record on disk. What any of the functions returned, handed to one of
   them as it is, is a finding: it must pass error_class() first. These
   are looked for in every file of the tree that calls one of the
   functions, not only in the directories of step 2.

Prints each finding as "FILE:LINE: ...", then a summary line; exits 1 if
there is any finding, or if Coccinelle could not check a file.
"""
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = ('tools/', 'scripts/', 'Documentation/', 'samples/', 'usr/',
        'lib/codetag/kunit/')
JOBS = int(os.environ.get('JOBS', '2'))
# Codes a seed may make under another name: ext4's EFSBADCRC is EBADMSG.
ALIASES = {'EFSBADCRC': 'EBADMSG', 'EFSCORRUPTED': 'EUCLEAN'}
# ERR(), or ERRCODE() as headers and files with an ERR of their own write it.
SEED_RE = re.compile(r'\bERR(CODE)?\((E[A-Z0-9]+)\)|\b(invalfc?|inval_plog|fs_param_bad_value)\(')
ERR_ONLY_RE = re.compile(r'\bERR(CODE)?\((E[A-Z0-9]+)\)')
NOT_NAMES = {'if', 'for', 'while', 'switch', 'return', 'sizeof', 'defined',
             '__attribute__', '__printf', '__releases', '__acquires',
             '__must_hold', '__no_sanitize_address', 'typeof', '__aligned'}


# What hands an error number on outside a system call return (step 4);
# a socket's sk_err is matched by the semantic patch itself.
SINKS = ['netlink_ack', 'netlink_set_err', 'errseq_set', 'mapping_set_error',
         'filemap_set_wb_err', 'fsnotify_sb_error', 'nfserrno',
         'errno_to_blk_status', 'ext4_errno_to_code', '__ext4_error',
         'ext4_error_err', '__ext4_error_inode', 'ext4_error_inode_err',
         '__ext4_std_error', 'ext4_abort']

CORE = ['fs/', 'init/', 'kernel/', 'mm/', 'security/', 'block/', 'ipc/',
        'net/core/', 'io_uring/']
scope = list(CORE)


def grep_c_files(tree, args, dirs=None):
    """The .c files of TREE in scope (or in DIRS) that grep finds."""
    out = subprocess.run(['grep', '-rl', '--include=*.c', '--exclude-dir=out-*'] +
                         args + ['.'], cwd=tree, capture_output=True,
                         text=True).stdout
    files = (f[2:] for f in out.split())
    return sorted(f for f in files if not f.startswith(SKIP) and
                  any(f.startswith(d) for d in (scope if dirs is None else dirs)))


def c_files_with(tree, words, everywhere=False):
    """The .c files of TREE (in scope, or EVERYWHERE) that contain any of
    WORDS as a word."""
    if not words:
        return []
    with tempfile.NamedTemporaryFile('w', delete=False) as t:
        t.write('\n'.join(sorted(words)) + '\n')
    files = grep_c_files(tree, ['-wF', '-f', t.name],
                         [''] if everywhere else None)
    os.unlink(t.name)
    return files


_cache = {}


def functions(tree, path):
    """[(name, first line number, body)] of the functions PATH defines."""
    if path in _cache:
        return _cache[path]
    with open(os.path.join(tree, path), errors='replace') as f:
        lines = f.read().split('\n')
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith('{'):
            i += 1
            continue
        # The signature: back to the line that starts in the first column.
        j = i - 1
        while j > 0 and j > i - 10 and not re.match(r'[A-Za-z_]', lines[j]):
            j -= 1
        sig = ' '.join(lines[j:i])
        name = None
        for m in re.finditer(r'\b(\w+)\s*\(', sig):
            if m.group(1) not in NOT_NAMES:
                name = m.group(1)
                break
        k = i + 1
        while k < len(lines) and not lines[k].startswith('}'):
            k += 1
        if name:
            out.append((name, i + 1, '\n'.join(lines[i:k])))
        i = k + 1
    _cache[path] = out
    return out


def alternation(names):
    return '\\b(' + '|'.join(re.escape(n) for n in sorted(names)) + ')\\b'


def propagate(tree, fields, new):
    """Functions and fields that pass on what a function of NEW returns."""
    found_names, found_fields = set(), set()
    if not new:
        return found_names, found_fields
    alt = alternation(new)
    ret = re.compile(r'\breturn\s+(?:ERR_PTR\(\s*)?(?:' + alt + r'\s*\(|[\w.>-]*->(\w+)\s*\()')
    assign = re.compile(r'\b(\w+)\s*=\s*(?:' + alt + r'\s*\(|[\w.>-]*->(\w+)\s*\()')
    table = re.compile(r'\.(\w+)\s*=\s*&?' + alt + r'\s*[,}\n]')
    handed = re.compile(r'\b(\w+)\s*\((?:[^;(){}]*,\s*)?' + alt + r'\s*[,)]')
    for path in c_files_with(tree, new):
        with open(os.path.join(tree, path), errors='replace') as f:
            text = f.read()
        for m in table.finditer(text):
            found_fields.add(m.group(1))
        defined = {name for name, _, _ in functions(tree, path)}
        for name, _, body in functions(tree, path):
            for m in ret.finditer(body):
                if m.group(1) or m.group(2) in fields:
                    found_names.add(name)
            for m in assign.finditer(body):
                if not (m.group(2) or m.group(3) in fields):
                    continue
                if re.search(r'\breturn\s+(?:ERR_PTR\(\s*)?' + re.escape(m.group(1)) +
                             r'\s*\)?\s*;', body):
                    found_names.add(name)
            # A callback is defined where it is handed on: a name that
            # is not a function of this file is a variable's here.
            for m in handed.finditer(body):
                if m.group(2) in defined and m.group(1) not in NOT_NAMES \
                   and not m.group(1).isupper():
                    found_names.add(m.group(1))
    return found_names, found_fields


def spatch(tree, text, path):
    with tempfile.NamedTemporaryFile('w', suffix='.cocci', delete=False) as t:
        t.write(text)
    r = subprocess.run(['spatch', '--very-quiet', '--no-includes',
                        '--timeout', '120', '--sp-file', t.name, path],
                       cwd=tree, capture_output=True, text=True)
    os.unlink(t.name)
    lines = r.stdout.splitlines()
    if r.returncode or 'timeout' in r.stderr.lower():
        lines.append('FAILED %s %s' % (path, (r.stderr.strip().splitlines() or ['?'])[-1]))
    return lines


def run_cocci(tree, template, files, words):
    """Each output line of the semantic patch TEMPLATE, its @KEY@s
    replaced by the alternation of WORDS[KEY], on each of FILES."""
    text = open(os.path.join(HERE, template)).read()
    for key, names in words.items():
        text = text.replace('@%s@' % key, '^(' + '|'.join(sorted(names)) + ')$')
    with concurrent.futures.ThreadPoolExecutor(JOBS) as pool:
        for lines in pool.map(lambda p: spatch(tree, text, p), files):
            yield from lines


def seed_re(tree):
    """What makes ERR() codes in TREE: ERR() itself, and the helpers of
    <linux/fs_context.h> where that header builds them on it (a tree
    without the header, such as the fixture, is taken to)."""
    try:
        with open(os.path.join(tree, 'include/linux/fs_context.h')) as f:
            header = f.read()
    except OSError:
        return SEED_RE
    if re.search(r'#define\s+invalf\(.*ERR(CODE)?\(', header):
        return SEED_RE
    return ERR_ONLY_RE


def main():
    tree = sys.argv[1]
    seeds, classes, sites = set(), set(), 0
    scope.append('')
    seeds_re = seed_re(tree)
    seed_files = grep_c_files(tree, ['-E', seeds_re.pattern])
    scope[:] = CORE + sorted({os.path.dirname(f) + '/' for f in seed_files})
    for path in seed_files:
        for name, first, body in functions(tree, path):
            for m in seeds_re.finditer(body):
                seeds.add(name)
                sites += 1
                cls = m.group(2) or 'EINVAL'
                classes.add(ALIASES.get(cls, cls))
                classes.add(cls)
    print('# %d ERR() sites in %d functions, classes %s' %
          (sites, len(seeds), ' '.join(sorted(classes))))

    names, fields = set(seeds), set()
    new_names, new_fields = set(seeds), set()
    rounds = 0
    while new_names or new_fields:
        rounds += 1
        # A new field: the calls through it are calls of what it holds.
        fn, ff = propagate(tree, fields | new_fields,
                           new_names | new_fields)
        new_names, new_fields = fn - names, ff - fields
        names |= new_names
        fields |= new_fields
        print('# round %d: %d more functions, %d more fields' %
              (rounds, len(new_names), len(new_fields)))
        if os.environ.get('VERBOSE'):
            print('#   ' + ' '.join(sorted(new_names | new_fields)))

    # Coccinelle on the files with a function that calls one of them and
    # mentions an errno of those classes.
    calls = re.compile(alternation(names | fields) + r'\s*\(')
    errno = re.compile(r'(?:[=!]=\s*|case\s+)-' + alternation(classes))
    todo = []
    for path in c_files_with(tree, names | fields):
        if any(calls.search(body) and errno.search(body)
               for _, _, body in functions(tree, path)):
            todo.append(path)
    # A switch on what one of them returned, with a case of those
    # classes: "x = f(...); ... switch (x) { ... case -EINVAL:".
    findings = set()
    case = re.compile(r'\bcase\s+-' + alternation(classes) + r'\s*:')
    for path in todo:
        for _, first, body in functions(tree, path):
            for m in re.finditer(r'\bswitch\s*\(\s*(?:(\w+)|' +
                                 alternation(names) + r'\s*\()', body):
                var = m.group(1)
                if var and not re.search(r'\b' + var + r'\s*=\s*(?:' +
                                         alternation(names) + r'\s*\(|[\w.>-]*->' +
                                         alternation(fields) + r'\s*\()',
                                         body[:m.start()]):
                    continue
                # The switch's own braces.
                depth, end = 0, len(body)
                for i in range(body.index('{', m.end()), len(body)):
                    depth += {'{': 1, '}': -1}.get(body[i], 0)
                    if depth == 0:
                        end = i
                        break
                for c in case.finditer(body, m.end(), end):
                    line = first + body.count('\n', 0, c.start())
                    findings.add(('%s:%d' % (path, line), '-' + c.group(1)))
    failed = []
    for line in run_cocci(tree, 'compare.cocci.in', todo,
                          {'NAMES': names, 'FIELDS': fields,
                           'CLASSES': classes}):
        w = line.split()
        if len(w) == 3 and w[0] == 'CMP':
            findings.add((w[1], w[2]))
        elif w and w[0] == 'FAILED':
            failed.append(line)
    # Step 4: the files anywhere that call one of them and name a sink.
    sink_word = re.compile(alternation(SINKS) + r'|\bsk_err\b')
    sink_todo = [path for path in c_files_with(tree, names | fields, True)
                 if sink_word.search(open(os.path.join(tree, path),
                                          errors='replace').read())]
    handed = set()
    for line in run_cocci(tree, 'sink.cocci.in', sink_todo,
                          {'NAMES': names, 'FIELDS': fields, 'SINKS': SINKS}):
        w = line.split()
        if len(w) == 2 and w[0] == 'SINK':
            handed.add(w[1])
        elif w and w[0] == 'FAILED':
            failed.append(line)

    for where, cls in sorted(findings):
        print('%s: a code ERR() may have made is compared with %s: use error_matches()' %
              (where, cls))
    for where in sorted(handed):
        print('%s: a code ERR() may have made is handed on where no system '
              'call return converts it: pass it through error_class()' % where)
    for line in failed:
        print('# Coccinelle could not check %s' % line[7:])
    print('# %d functions and %d operation fields may return ERR() codes; '
          '%d files checked; %d comparisons with a plain errno' %
          (len(names), len(fields), len(todo), len(findings)))
    print('# %d files that call them and name a boundary (%s, sk_err) '
          'checked; %d codes handed on' %
          (len(sink_todo), ', '.join(SINKS), len(handed)))
    return 1 if findings or handed or failed else 0


if __name__ == '__main__':
    sys.exit(main())
