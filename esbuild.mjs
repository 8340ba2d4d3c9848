// Builds every bundle Spool ships into dist/:
//   extension.js  the VS Code extension (vscode is provided by the editor)
//   workflowRunPage.js  the script of a workflow run's graph page, with dagre (runs in the webview)
//   dashboardPage.js    the dashboard's script, with uPlot (runs in the webview; uPlot's style sheet: dashboardPage.css)
//   daemon.js     spoold, the queue daemon (better-sqlite3 stays a native module beside it)
//   cli.js        the `spool` command, a client: no driver, no daemon code (`spool daemon` starts daemon.js)
//   lsp.js        the language server of spool.jsonc (`spool lsp --stdio` and the extension run it)
//   mcp.js        the Model Context Protocol server for coding agents (`spool mcp`)
//   top.js        `spool top`, the full-screen view, with terminal-kit
//   bench.js      `npm run bench`
//   packages/client/dist/index.js  the spool-client package (its declarations: npm run build:client)
//   checkpointer.js  the daemon's WAL checkpointer thread, loaded by path from beside daemon.js
//                    (and bench.js) — a worker thread needs a file of its own
//   launcher.js   the daemon's launcher of shell jobs' processes (a small process of its own, so
//                 that starting a job forks it rather than the daemon), started from beside daemon.js
// Flags: --watch rebuilds on change; --production minifies and drops source maps.
import * as esbuild from 'esbuild';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';

const require = createRequire(import.meta.url);

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  define: { SPOOL_VERSION: JSON.stringify(pkg.version) },
  external: ['better-sqlite3'],
  // The ESM build of a package before its main: jsonc-parser's main is a UMD bundle whose
  // dynamic requires ("./impl/format") esbuild cannot follow, so the bundle would fail to start.
  mainFields: ['module', 'main'],
  plugins: [terminalKit()],
};

/**
 * terminal-kit (in `spool top`) loads most of its modules lazily, by requires esbuild cannot
 * follow; its own build without lazy requires is used instead, also where its modules import
 * termkit.js. Its terminal configurations are required by a computed name, so esbuild takes
 * every file of that folder, and the folder's README is not a module.
 */
function terminalKit() {
  return {
    name: 'terminal-kit',
    setup(build) {
      build.onResolve({ filter: /^(\.\.?\/)+termkit\.js$/ }, (args) =>
        /[\\/]terminal-kit[\\/]lib([\\/]|$)/.test(args.resolveDir) ? { path: path.join(path.dirname(require.resolve('terminal-kit/package.json')), 'lib', 'termkit-no-lazy-require.js') } : undefined,
      );
      build.onLoad({ filter: /[\\/]terminal-kit[\\/]lib[\\/]termconfig[\\/]README$/ }, () => ({ contents: '', loader: 'empty' }));
    },
  };
}

const builds = [
  { ...common, entryPoints: { extension: 'extension/extension.ts' }, external: ['vscode'] },
  { ...common, entryPoints: { workflowRunPage: 'extension/views/workflowRun/page/main.ts' }, platform: 'browser', format: 'iife', target: 'es2022', external: [] },
  { ...common, entryPoints: { dashboardPage: 'extension/views/dashboard/page/main.ts' }, platform: 'browser', format: 'iife', target: 'es2022', external: [] },
  // The queues the benchmark compares against (dev dependencies) load from node_modules at run time.
  { ...common, entryPoints: { daemon: 'daemon/main.ts', cli: 'cli/main.ts', lsp: 'lsp/main.ts', mcp: 'mcp/main.ts', top: 'cli/top/main.ts', bench: 'bench/main.ts', checkpointer: 'daemon/storage/sqlite/checkpointer.ts', launcher: 'daemon/executors/launcherMain.ts' }, external: [...common.external, 'graphile-worker', 'pg-boss', 'bullmq'] },
  // spool-client: the client and worker library as a package of its own, no daemon code.
  { ...common, entryPoints: { index: 'packages/client/index.ts' }, outdir: 'packages/client/dist' },
];

if (watch) {
  for (const options of builds) {
    const ctx = await esbuild.context({ outdir: 'dist', ...options });
    await ctx.watch();
  }
  console.log('esbuild: watching for changes');
} else {
  await Promise.all(builds.map((options) => esbuild.build({ outdir: 'dist', ...options })));
}
