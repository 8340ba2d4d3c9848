/**
 * `spool completion bash|zsh|fish`: a completion script generated from the command tree itself,
 * so it never falls behind the commands. Completes commands, subcommands, options, job states,
 * `spool rpc` method names, and the live names of queues, schedules, workers, workflows and
 * workflow runs: for those the
 * script calls back into `spool __complete <kind>` (commands/complete-names.ts), which asks the
 * daemon (at the `--socket` typed on the line, if any) and prints nothing when none answers.
 * zsh loads the bash script through bashcompinit, which every zsh ships.
 *
 * The script calls back into the spool that wrote it, by its path (the Node.js that ran it, and
 * its bin/spool), so names complete when that spool is not on the PATH (`./bin/spool completion
 * bash`, a global install under another prefix); `spool` on the PATH only when those files are gone.
 */
import type { Command, Option } from 'commander';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { METHOD_NAMES } from '../../shared/protocol';
import { JOB_STATES } from '../../shared/protocol/types';
import { action, arg } from '../action';
import { CliError } from '../errors';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** Sub-actions given as a positional word rather than as commander subcommands. */
const ACTION_WORDS: Readonly<Record<string, readonly string[]>> = {
  rpc: METHOD_NAMES,
  completion: SHELLS,
  daemon: ['start', 'stop', 'status', 'install-service'],
  queue: ['pause', 'resume', 'purge', 'set', 'delete', 'show'],
};

/** Commands whose first argument names a queue, a schedule, a workflow, or a workflow run. */
const QUEUE_ARGUMENT = ['enqueue', 'work', 'queue'];
const SCHEDULE_ARGUMENT = ['schedule set', 'schedule rm', 'schedule enable', 'schedule disable', 'schedule run', 'schedule show'];
const WORKFLOW_ARGUMENT = ['run', 'workflows'];
const RUN_ARGUMENT = ['workflow show', 'workflow wait', 'workflow cancel', 'workflow retry'];

/** Options whose value is a live name, and which kind of name. */
const NAME_OPTIONS: readonly [flags: string, kind: 'queues' | 'workers'][] = [
  ['-q|--queue', 'queues'],
  ['--worker-id', 'workers'],
];

/** The program that wrote a script, for the script to call back: node and the spool script it ran. */
export interface SpoolSelf {
  node: string;
  script: string;
}

/**
 * This process as a command the script can run again, or null when it cannot be run without a
 * loader (the CLI's TypeScript source, under tsx) or its script is unknown.
 */
export function spoolSelf(argv: readonly string[] = process.argv, node: string = process.execPath): SpoolSelf | null {
  const script = argv[1];
  if (script === undefined || script.endsWith('.ts')) return null;
  const absolute = path.resolve(script);
  return fs.existsSync(absolute) ? { node, script: absolute } : null;
}

/** A word in single quotes for bash and zsh. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

interface Node {
  path: string;
  command: Command;
  words: string[];
}

function visible(cmd: Command): Command[] {
  return cmd.commands.filter((c) => c.name() !== 'help' && !c.name().startsWith('__'));
}

function walk(cmd: Command, prefix: string, out: Node[]): void {
  const subs = visible(cmd);
  const options = cmd.options.flatMap((o) => [o.long, o.short].filter((x): x is string => typeof x === 'string'));
  // The queue command's actions come second (spool queue <name> <action>); its first word is a name.
  const extra = prefix === 'queue' ? [] : (ACTION_WORDS[prefix] ?? []);
  out.push({ path: prefix, command: cmd, words: [...subs.map((c) => c.name()), ...extra, ...options, '--help'] });
  for (const s of subs) walk(s, prefix ? `${prefix} ${s.name()}` : s.name(), out);
}

export function bashCompletion(program: Command, self: SpoolSelf | null = null): string {
  const nodes: Node[] = [];
  walk(program, '', nodes);
  const global = program.options.flatMap((o) => [o.long].filter((x): x is string => typeof x === 'string'));
  const cases = nodes.map((n) => `    "${n.path}") words="${[...n.words, ...(n.path ? global : [])].join(' ')}" ;;`).join('\n');
  const paths = nodes.filter((n) => n.path).map((n) => `"${n.path}"`).join('|');
  const queueOptions = ACTION_WORDS['queue']?.join(' ') ?? '';
  const run =
    self === null
      ? `_spool_run() { command spool "$@"; }`
      : `# The spool that wrote this script, by its path: it need not be on the PATH.
_spool_node=${shellQuote(self.node)}
_spool_script=${shellQuote(self.script)}
_spool_run() {
  if [ -x "$_spool_node" ] && [ -f "$_spool_script" ]; then "$_spool_node" "$_spool_script" "$@"
  else command spool "$@"; fi
}`;
  return `# spool completion for bash. Load it with:  source <(spool completion bash)
# Live names come from \`spool __complete queues|schedules|workers|workflows|runs\`, which prints nothing when no
# daemon answers.
${run}
_spool_names() {
  local i socket=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      --socket) socket="\${COMP_WORDS[i+1]}" ;;
      --socket=*) socket="\${COMP_WORDS[i]#--socket=}" ;;
    esac
  done
  if [ -n "$socket" ]; then _spool_run --socket "$socket" __complete "$1" 2>/dev/null
  else _spool_run __complete "$1" 2>/dev/null; fi
}
_spool() {
  local cur prev cmd w i n words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  cmd=""
  n=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in -*) continue ;; esac
    case "\${cmd:+$cmd }$w" in
      ${paths}) cmd="\${cmd:+$cmd }$w"; n=$i ;;
    esac
  done
  case "$prev" in
    -s|--state) COMPREPLY=($(compgen -W "${JOB_STATES.join(' ')}" -- "$cur")); return ;;
    --socket|--payload|--cwd|--db) COMPREPLY=($(compgen -f -- "$cur")); return ;;
${NAME_OPTIONS.map(([flags, kind]) => `    ${flags}) COMPREPLY=($(compgen -W "$(_spool_names ${kind})" -- "$cur")); return ;;`).join('\n')}
  esac
  # The word right after the command: a queue or schedule name where the command takes one.
  if [ "$n" -gt 0 ] && [ "$COMP_CWORD" -eq $((n + 1)) ]; then
    case "$cur" in -*) ;; *)
      case "$cmd" in
        ${QUEUE_ARGUMENT.map((c) => `"${c}"`).join('|')}) COMPREPLY=($(compgen -W "$(_spool_names queues)" -- "$cur")); return ;;
        ${SCHEDULE_ARGUMENT.map((c) => `"${c}"`).join('|')}) COMPREPLY=($(compgen -W "$(_spool_names schedules)" -- "$cur")); return ;;
        ${WORKFLOW_ARGUMENT.map((c) => `"${c}"`).join('|')}) COMPREPLY=($(compgen -W "$(_spool_names workflows)" -- "$cur")); return ;;
        ${RUN_ARGUMENT.map((c) => `"${c}"`).join('|')}) COMPREPLY=($(compgen -W "$(_spool_names runs)" -- "$cur")); return ;;
      esac ;;
    esac
  fi
  case "$cmd" in
${cases}
    *) words="" ;;
  esac
  # spool queue <name> <action>: the actions come after the name.
  if [ "$cmd" = queue ] && [ "$COMP_CWORD" -eq $((n + 2)) ]; then words="${queueOptions} $words"; fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _spool spool
`;
}

export function zshCompletion(program: Command, self: SpoolSelf | null = null): string {
  return `# spool completion for zsh. Load it with:  source <(spool completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program, self).split('\n').slice(1).join('\n')}`;
}

/** A fish string literal (single quotes; fish knows only the \\' and \\\\ escapes in them). */
function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function fishOption(path: string, o: Option): string {
  const parts = ['complete -c spool', `-n ${fishQuote(path ? `__spool_on ${path}` : '__spool_top')}`];
  if (o.long) parts.push(`-l ${o.long.replace(/^--/, '')}`);
  if (o.short) parts.push(`-s ${o.short.replace(/^-/, '')}`);
  if (o.required || o.optional) {
    parts.push('-r');
    const named = NAME_OPTIONS.find(([flags]) => flags.split('|').includes(o.long ?? ''));
    if (named) parts.push('-f', `-a ${fishQuote(`(__spool_names ${named[1]})`)}`);
    else if (o.long === '--state') parts.push('-f', `-a ${fishQuote(JOB_STATES.join(' '))}`);
    else if (!['--socket', '--payload', '--cwd', '--db'].includes(o.long ?? '')) parts.push('-f');
  }
  parts.push(`-d ${fishQuote(o.description)}`);
  return parts.join(' ');
}

export function fishCompletion(program: Command, self: SpoolSelf | null = null): string {
  const nodes: Node[] = [];
  walk(program, '', nodes);
  const lines: string[] = [];
  for (const n of nodes) {
    const subs = visible(n.command);
    const here = n.path ? `__spool_is ${n.path}` : '__spool_is';
    for (const s of subs) lines.push(`complete -c spool -f -n ${fishQuote(here)} -a ${fishQuote(s.name())} -d ${fishQuote(s.description())}`);
    const words = n.path === 'queue' ? [] : (ACTION_WORDS[n.path] ?? []);
    if (words.length > 0) lines.push(`complete -c spool -f -n ${fishQuote(here)} -a ${fishQuote(words.join(' '))}`);
    if (QUEUE_ARGUMENT.includes(n.path)) lines.push(`complete -c spool -f -n ${fishQuote(here)} -a ${fishQuote('(__spool_names queues)')}`);
    if (SCHEDULE_ARGUMENT.includes(n.path)) lines.push(`complete -c spool -f -n ${fishQuote(here)} -a ${fishQuote('(__spool_names schedules)')}`);
    if (WORKFLOW_ARGUMENT.includes(n.path)) lines.push(`complete -c spool -f -n ${fishQuote(here)} -a ${fishQuote('(__spool_names workflows)')}`);
    if (RUN_ARGUMENT.includes(n.path)) lines.push(`complete -c spool -f -n ${fishQuote(here)} -a ${fishQuote('(__spool_names runs)')}`);
    if (n.path === 'queue') lines.push(`complete -c spool -f -n ${fishQuote('__spool_is_queue_action')} -a ${fishQuote(ACTION_WORDS['queue']?.join(' ') ?? '')}`);
    for (const o of n.command.options) lines.push(fishOption(n.path, o));
  }
  return `# spool completion for fish. Load it with:  spool completion fish | source
# or save it:  spool completion fish > ~/.config/fish/completions/spool.fish
# Live names come from \`spool __complete queues|schedules|workers|workflows|runs\`, which prints nothing when no
# daemon answers.

# The words typed after "spool" that are not options (an option's value counts as a word).
function __spool_args
    set -l words (commandline -opc)
    set -e words[1]
    for w in $words
        string match -q -- '-*' $w; or echo $w
    end
end

# True when the words typed so far are exactly these (no words: at the top level).
function __spool_is
    set -l args (__spool_args)
    test (count $args) -eq (count $argv); or return 1
    for i in (seq (count $argv))
        test "$args[$i]" = "$argv[$i]"; or return 1
    end
end

# True when the words typed so far begin with these.
function __spool_on
    set -l args (__spool_args)
    test (count $args) -ge (count $argv); or return 1
    for i in (seq (count $argv))
        test "$args[$i]" = "$argv[$i]"; or return 1
    end
end

function __spool_top
    true
end

# spool queue <name> <action>: the action comes after the name.
function __spool_is_queue_action
    set -l args (__spool_args)
    test (count $args) -eq 2; and test "$args[1]" = queue
end

${
  self === null
    ? `function __spool_run
    command spool $argv
end`
    : `# The spool that wrote this script, by its path: it need not be on the PATH.
function __spool_run
    if test -x ${fishQuote(self.node)}; and test -f ${fishQuote(self.script)}
        ${fishQuote(self.node)} ${fishQuote(self.script)} $argv
    else
        command spool $argv
    end
end`
}

# Live names from the daemon, at the --socket given on the line if any.
function __spool_names
    set -l words (commandline -opc)
    set -l socket
    for i in (seq (count $words))
        if test "$words[$i]" = --socket; and test $i -lt (count $words)
            set socket --socket $words[(math $i + 1)]
        end
    end
    __spool_run $socket __complete $argv[1] 2>/dev/null
end

complete -c spool -f
${lines.join('\n')}
`;
}

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('Print a shell completion script')
    .argument('<shell>', SHELLS.join(', '))
    .addHelpText(
      'after',
      `
Queue, schedule, worker and workflow names and workflow run ids are completed from the running
daemon (and workflow names from spool.jsonc in the current folder).

Examples:
  source <(spool completion bash)                      # this shell only
  spool completion bash > ~/.local/share/bash-completion/completions/spool
  echo 'source <(spool completion zsh)' >> ~/.zshrc
  spool completion fish > ~/.config/fish/completions/spool.fish`,
    )
    .action(
      action(async (ctx, args) => {
        const shell = arg(args, 0);
        const self = spoolSelf();
        if (shell === 'bash') ctx.print(bashCompletion(program, self));
        else if (shell === 'zsh') ctx.print(zshCompletion(program, self));
        else if (shell === 'fish') ctx.print(fishCompletion(program, self));
        else throw new CliError(`Unknown shell "${shell}": use ${SHELLS.join(', ')}.`);
      }),
    );
}
