/**
 * The layout's import boundaries (docs: DESIGN.md, "Layout"), checked on every TypeScript file of
 * the repository: each import (static `import`, `import type`, `export … from`, `import()`,
 * `typeof import()`, `require`) is read with TypeScript's own scanner, resolved to a file or a
 * module, and checked against the rules below. A violation names the file and line.
 *
 * Also: no import cycles between files, type-only ones included (a cycle makes the order in
 * which modules initialise matter, and is a sign that two files are one idea split badly).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');

/** The programs: folders that may depend on shared/, never the other way round. */
const PROGRAMS = ['daemon', 'cli', 'lsp', 'mcp', 'extension'];
/** Modules that tie code to one host or one database: never in shared/. */
const DRIVERS = ['vscode', 'better-sqlite3', 'pg'];
/** Node modules that do I/O (files, network, processes, threads, the terminal, the machine). */
const NODE_IO = ['fs', 'fs/promises', 'net', 'tls', 'http', 'https', 'http2', 'dgram', 'dns', 'dns/promises', 'child_process', 'worker_threads', 'cluster', 'readline', 'repl', 'inspector', 'os'];

/** What an import points at: a file of the repository (relative to it), or a module by name. */
type Target = { file: string } | { module: string };

interface Rule {
  /** Says what the rule is, in the message of a violation. */
  rule: string;
  /** The importing files it applies to (paths relative to the repository, with '/'). */
  from: RegExp;
  /** Whether an import of `target` breaks it. */
  forbids: (target: Target) => boolean;
}

const underFolder = (pattern: RegExp) => (target: Target): boolean => 'file' in target && pattern.test(target.file);
const isModule = (names: readonly string[]) => (target: Target): boolean => {
  if (!('module' in target)) return false;
  const name = target.module.replace(/^node:/, '');
  return names.some((n) => name === n || name.startsWith(`${n}/`));
};

const RULES: readonly Rule[] = [
  {
    rule: 'shared/ imports no program (daemon/, cli/, lsp/, extension/)',
    from: /^shared\//,
    forbids: underFolder(new RegExp(`^(${PROGRAMS.join('|')})/`)),
  },
  { rule: `shared/ imports no driver (${DRIVERS.join(', ')})`, from: /^shared\//, forbids: isModule(DRIVERS) },
  {
    // Pure rules run anywhere (a webview, a browser): no Node module at all, I/O or not.
    rule: 'shared/domain/ does no I/O (no node: module: node:fs, node:net, node:crypto…)',
    from: /^shared\/domain\//,
    forbids: (target) => isModule([...NODE_IO, 'crypto'])(target) || ('module' in target && target.module.startsWith('node:')),
  },
  { rule: 'cli/, lsp/ and extension/ import nothing from daemon/', from: /^(cli|lsp|extension)\//, forbids: underFolder(/^daemon\//) },
  {
    // The engine talks to a store through its statements (daemon/storage/statements/) and its
    // runner (daemon/storage/store.ts) only, so a second store needs no engine change.
    rule: "daemon/engine/ does not import a store's internals (daemon/storage/sqlite/, daemon/storage/postgres/)",
    from: /^daemon\/engine\//,
    forbids: underFolder(/^daemon\/storage\/(sqlite|postgres)\//),
  },
  { rule: 'daemon/engine/ imports no database driver', from: /^daemon\/engine\//, forbids: isModule(DRIVERS) },
  {
    // A store provides statements; the policy and the flow of every operation are the engine's.
    rule: 'daemon/storage/ imports nothing from the engine (daemon/engine/)',
    from: /^daemon\/storage\//,
    forbids: underFolder(/^daemon\/engine\//),
  },
  {
    // Row mapping is how a store reads its own rows; the engine sees the statements' types only.
    rule: "daemon/engine/ does not import a store's row helpers (daemon/storage/mappers.ts, rows.ts)",
    from: /^daemon\/engine\//,
    forbids: underFolder(/^daemon\/storage\/(mappers|rows)\.ts$/),
  },
  { rule: 'cli/ imports nothing from lsp/ or extension/', from: /^cli\//, forbids: underFolder(/^(lsp|extension)\//) },
  { rule: 'lsp/ imports nothing from cli/ or extension/', from: /^lsp\//, forbids: underFolder(/^(cli|extension)\//) },
  { rule: 'extension/ imports nothing from cli/', from: /^extension\//, forbids: underFolder(/^cli\//) },
  // The MCP server is a client like the CLI, built on shared/ alone.
  { rule: 'mcp/ imports only shared/', from: /^mcp\//, forbids: underFolder(/^(daemon|cli|lsp|extension)\//) },
  {
    // The language service is pure functions over a document: the types of LSP, not its server.
    rule: 'lsp/service/ imports no language server runtime (vscode-languageserver, -protocol, vscode-jsonrpc)',
    from: /^lsp\/service\//,
    forbids: (target) => isModule(['vscode-jsonrpc', 'vscode-languageserver-protocol'])(target) || ('module' in target && target.module === 'vscode-languageserver'),
  },
  { rule: 'shared/ imports no language server package (vscode-languageserver*)', from: /^shared\//, forbids: (target) => 'module' in target && target.module.startsWith('vscode-languageserver') },
  // shared/ in layers, each importing only those before it: protocol ← domain ← jobsfile ← client.
  { rule: 'shared/protocol/ imports no later layer (domain, jobsfile, client)', from: /^shared\/protocol\//, forbids: underFolder(/^shared\/(domain|jobsfile|client)\//) },
  { rule: 'shared/domain/ imports no later layer (jobsfile, client)', from: /^shared\/domain\//, forbids: underFolder(/^shared\/(jobsfile|client)\//) },
  { rule: 'shared/jobsfile/ imports no later layer (client)', from: /^shared\/jobsfile\//, forbids: underFolder(/^shared\/client\//) },
];

/** Nothing loose at shared/'s root: every file belongs to a layer. */
const SHARED_LAYERS = ['protocol', 'domain', 'jobsfile', 'client'];

/**
 * Import cycles known today, each as its files in sorted order. None: the two there were (the
 * store's jobs ↔ mappers types, the bench's engine ↔ floor) were broken up, and nothing may be
 * added here.
 */
const KNOWN_CYCLES: readonly (readonly string[])[] = [];

interface Import {
  /** The importing file, relative to the repository. */
  file: string;
  line: number;
  specifier: string;
  target: Target;
}

/** Every .ts file of the repository but dependencies and build output. */
function sourceFiles(dir = ROOT): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (entry.name.endsWith('.ts')) out.push(path.relative(ROOT, full).split(path.sep).join('/'));
  }
  return out;
}

/** The file a relative specifier names, as Node16 resolution and esbuild find it; null if none. */
function resolveFile(from: string, specifier: string): string | null {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier)).replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, `${base}.d.ts`, `${base}/index.ts`, base]) {
    if (fs.existsSync(path.join(ROOT, candidate)) && fs.statSync(path.join(ROOT, candidate)).isFile()) return candidate;
  }
  return null;
}

/** The imports of one file's text, every form (see the module comment), with their lines. */
function importsOf(file: string, text: string): Import[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((imported) => {
    const specifier = imported.fileName;
    const line = text.slice(0, imported.pos).split('\n').length;
    const relative = specifier.startsWith('./') || specifier.startsWith('../');
    const resolved = relative ? resolveFile(file, specifier) : null;
    const target: Target = relative ? { file: resolved ?? path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)) } : { module: specifier };
    return { file, line, specifier, target };
  });
}

let cached: Import[] | undefined;

/** The imports of every file of the repository (read once for the tests below). */
function allImports(): Import[] {
  cached ??= sourceFiles().flatMap((file) => importsOf(file, fs.readFileSync(path.join(ROOT, file), 'utf8')));
  return cached;
}

/** Each import that breaks a rule, as `file:line: imports X — rule`. */
function violations(imports: readonly Import[]): string[] {
  const out: string[] = [];
  for (const imp of imports) {
    for (const rule of RULES) {
      if (rule.from.test(imp.file) && rule.forbids(imp.target)) {
        const what = 'file' in imp.target ? imp.target.file : imp.target.module;
        out.push(`${imp.file}:${imp.line}: imports ${what} ('${imp.specifier}') — ${rule.rule}`);
      }
    }
  }
  return out;
}

/** The import cycles between files (Tarjan's strongly connected components), each as its sorted files. */
function cycles(imports: readonly Import[]): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const imp of imports) {
    if (!('file' in imp.target)) continue;
    let set = edges.get(imp.file);
    if (!set) edges.set(imp.file, (set = new Set()));
    set.add(imp.target.file);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (;;) {
      const member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1 || edges.get(node)?.has(node)) found.push(component.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** One cycle with the lines that close it, for the failure message. */
function describeCycle(component: readonly string[], imports: readonly Import[]): string {
  const members = new Set(component);
  const lines = imports.filter((imp) => members.has(imp.file) && 'file' in imp.target && members.has(imp.target.file));
  return `${component.join(' ↔ ')}\n${lines.map((imp) => `    ${imp.file}:${imp.line}: '${imp.specifier}'`).join('\n')}`;
}

test('the import reader finds every form of import, type-only and dynamic ones included', () => {
  const text = [
    "import a from './a';",
    "import type { B } from '../b.js';",
    "export { c } from './c';",
    "export * from 'vscode';",
    "const e = import('node:fs');",
    "type F = typeof import('./f');",
    "const g = require('pg');",
    "import './h';",
  ].join('\n');
  const found = importsOf('shared/domain/x.ts', text).map((imp) => `${imp.line} ${imp.specifier}`);
  assert.deepEqual(found, ['1 ./a', '2 ../b.js', '3 ./c', '4 vscode', '5 node:fs', '6 ./f', '7 pg', '8 ./h']);
});

test('each rule bites: a file breaking it is named with its line', () => {
  const cases: [string, string, RegExp][] = [
    ['shared/x.ts', "import { Daemon } from '../daemon/lifecycle/daemon';", /^shared\/x\.ts:1: imports daemon\/lifecycle\/daemon\.ts .* shared\/ imports no program/],
    ['shared/client/y.ts', "\nimport type * as vscode from 'vscode';", /^shared\/client\/y\.ts:2: imports vscode .* no driver/],
    ['shared/domain/z.ts', "const fs = require('node:fs');", /^shared\/domain\/z\.ts:1: imports node:fs .* no I\/O/],
    ['shared/domain/z.ts', "import { spawn } from 'child_process';", /imports child_process .* no I\/O/],
    ['shared/domain/z.ts', "import { randomFillSync } from 'node:crypto';", /imports node:crypto .* no I\/O/],
    ['shared/domain/rules/z.ts', "import type { Declaration } from '../../jobsfile/model';", /imports shared\/jobsfile\/model\.ts .* no later layer/],
    ['cli/commands/a.ts', "type C = typeof import('../../daemon/config.js');", /^cli\/commands\/a\.ts:1: imports daemon\/config\.ts .* import nothing from daemon\//],
    ['extension/b.ts', "export { x } from '../daemon/main';", /imports daemon\/main\.ts .* import nothing from daemon\//],
    ['daemon/engine/c.ts', "import { openStore } from '../storage/sqlite/open';", /^daemon\/engine\/c\.ts:1: imports daemon\/storage\/sqlite\/open .* a store's internals/],
    ['daemon/engine/ops/c.ts', "import { mapJob } from '../../storage/mappers';", /imports daemon\/storage\/mappers\.ts .* row helpers/],
    ['daemon/storage/sqlite/d.ts', "import { jobRules } from '../../engine/rules';", /imports daemon\/engine\/rules\.ts .* nothing from the engine/],
    ['cli/commands/e.ts', "import { check } from '../../lsp/service/diagnostics';", /imports lsp\/service\/diagnostics\.ts .* cli\/ imports nothing from lsp\//],
    ['cli/f.ts', "import type { X } from '../extension/x';", /cli\/ imports nothing from lsp\/ or extension\//],
    ['lsp/service/g.ts', "import { createConnection } from 'vscode-languageserver';", /lsp\/service\/ imports no language server runtime/],
    ['shared/jobsfile/h.ts', "import type { Range } from 'vscode-languageserver-types';", /shared\/ imports no language server package/],
    ['shared/protocol/i.ts', "import type { Plan } from '../jobsfile/plan';", /shared\/protocol\/ imports no later layer/],
    ['shared/domain/j.ts', "import { SpoolClient } from '../client/client';", /shared\/domain\/ imports no later layer/],
    ['shared/domain/k.ts', "import { randomFillSync } from 'node:crypto';", /shared\/domain\/ does no I\/O/],
  ];
  for (const [file, text, expected] of cases) {
    const found = violations(importsOf(file, text));
    assert.equal(found.length, 1, `${file}: ${text} → ${found.join('; ')}`);
    assert.match(found[0], expected);
  }
  // Allowed: the engine through the interface; a program through shared/; the extension's own daemon/ folder.
  assert.deepEqual(violations(importsOf('daemon/engine/d.ts', "import type { Store } from '../storage/store';")), []);
  assert.deepEqual(violations(importsOf('cli/e.ts', "import { SpoolClient } from '../shared/client';")), []);
  assert.deepEqual(violations(importsOf('extension/f.ts', "import { DaemonConnection } from './daemon/connection';")), []);
  assert.deepEqual(violations(importsOf('shared/client/g.ts', "import { spawn } from 'node:child_process';")), []);
  assert.deepEqual(violations(importsOf('lsp/service/h.ts', "import type { Hover } from 'vscode-languageserver-types';")), []);
  assert.deepEqual(violations(importsOf('shared/jobsfile/i.ts', "import { parseDuration } from '../domain/durations';")), []);
});

test("every file of shared/ sits in a layer's folder", () => {
  const loose = sourceFiles(path.join(ROOT, 'shared')).filter((file) => !SHARED_LAYERS.some((layer) => file.startsWith(`shared/${layer}/`)));
  assert.deepEqual(loose, []);
});

test('the repository keeps the import boundaries of its layout', () => {
  const imports = allImports();
  assert.ok(imports.some((imp) => imp.file.startsWith('cli/')), 'the reader sees the CLI');
  assert.deepEqual(violations(imports), []);
});

test('no import cycles between files, type-only ones included', () => {
  const imports = allImports();
  const known = new Set(KNOWN_CYCLES.map((cycle) => [...cycle].sort().join(' ↔ ')));
  const found = cycles(imports);
  const unknown = found.filter((component) => !known.has(component.join(' ↔ ')));
  assert.equal(unknown.length, 0, `Import cycles:\n${unknown.map((c) => describeCycle(c, imports)).join('\n')}`);
  // A fixed cycle leaves the allow-list, so that it cannot come back unnoticed.
  const gone = [...known].filter((cycle) => !found.some((component) => component.join(' ↔ ') === cycle));
  assert.deepEqual(gone, [], 'cycles that no longer exist: remove them from KNOWN_CYCLES');
});

test('the cycle finder finds a cycle through a type-only import', () => {
  const imports = [...importsOf('a/x.ts', "import type { Y } from './y';"), ...importsOf('a/y.ts', "import { x } from './x';")];
  // Neither file exists, so the targets stay as the paths the specifiers name.
  const fixed = imports.map((imp) => ({ ...imp, target: 'file' in imp.target ? { file: `${imp.target.file}.ts` } : imp.target }));
  assert.deepEqual(cycles(fixed), [['a/x.ts', 'a/y.ts']]);
});
