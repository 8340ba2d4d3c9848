/**
 * `spool completion bash|zsh`: a completion script generated from the command tree itself, so
 * it never falls behind the commands. Completes commands, subcommands, options, job states and
 * `spool rpc` method names. zsh loads the bash script through bashcompinit, which every zsh
 * ships.
 */
import type { Command } from 'commander';
import { METHOD_NAMES } from '../../shared/protocol';
import { JOB_STATES } from '../../shared/types';
import { action, arg } from '../action';
import { CliError } from '../errors';

interface Node {
  path: string;
  words: string[];
}

function walk(cmd: Command, prefix: string, out: Node[]): void {
  const subs = cmd.commands.filter((c) => c.name() !== 'help');
  const options = cmd.options.flatMap((o) => [o.long, o.short].filter((x): x is string => typeof x === 'string'));
  const extra = prefix === 'rpc' ? [...METHOD_NAMES] : prefix === 'completion' ? ['bash', 'zsh'] : prefix === 'daemon' ? ['start', 'stop', 'status'] : [];
  const queueActions = prefix === 'queue' ? ['pause', 'resume', 'purge', 'set', 'delete', 'show'] : [];
  out.push({ path: prefix, words: [...subs.map((c) => c.name()), ...extra, ...queueActions, ...options, '--help'] });
  for (const s of subs) walk(s, prefix ? `${prefix} ${s.name()}` : s.name(), out);
}

export function bashCompletion(program: Command): string {
  const nodes: Node[] = [];
  walk(program, '', nodes);
  const global = program.options.flatMap((o) => [o.long].filter((x): x is string => typeof x === 'string'));
  const cases = nodes.map((n) => `    "${n.path}") words="${[...n.words, ...(n.path ? global : [])].join(' ')}" ;;`).join('\n');
  const paths = nodes.filter((n) => n.path).map((n) => `"${n.path}"`).join('|');
  return `# spool completion for bash. Load it with:  source <(spool completion bash)
_spool() {
  local cur prev cmd w i words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in -*) continue ;; esac
    case "\${cmd:+$cmd }$w" in
      ${paths}) cmd="\${cmd:+$cmd }$w" ;;
    esac
  done
  case "$prev" in
    -s|--state) COMPREPLY=($(compgen -W "${JOB_STATES.join(' ')}" -- "$cur")); return ;;
    --socket|--payload|--cwd) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  case "$cmd" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _spool spool
`;
}

export function zshCompletion(program: Command): string {
  return `# spool completion for zsh. Load it with:  source <(spool completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program).split('\n').slice(1).join('\n')}`;
}

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('Print a shell completion script')
    .argument('<shell>', 'bash or zsh')
    .addHelpText(
      'after',
      `
Examples:
  source <(spool completion bash)                      # this shell only
  spool completion bash > ~/.local/share/bash-completion/completions/spool
  echo 'source <(spool completion zsh)' >> ~/.zshrc`,
    )
    .action(
      action(async (ctx, args) => {
        const shell = arg(args, 0);
        if (shell === 'bash') ctx.print(bashCompletion(program));
        else if (shell === 'zsh') ctx.print(zshCompletion(program));
        else throw new CliError(`Unknown shell "${shell}": use bash or zsh.`);
      }),
    );
}
