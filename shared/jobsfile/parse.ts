/**
 * `parseJobsFile`: a jobs file's text in, its normalized declaration and every problem out, each
 * at the exact range of the offending key or value. The layers run in order — JSON syntax
 * (jsonc-parser's, which still gives a tree to check the rest of), schema and values (`check.ts`,
 * driven by `spec.ts`), then the file's meaning (references between objects, parameters, and
 * the checks across a workflow's steps in `workflows.ts`). Pure, and it never throws: whatever
 * the text, the answer is a result.
 */
import { createScanner, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { DEFAULT_TIMEZONE } from '../domain/cron';
import { isRecord } from '../domain/records';
import type { MissedRunPolicy, RateLimit, RetryRule } from '../protocol/types';
import { retryRule } from '../domain/rules/retry';
import { Checker, members, pathText, setEntry, type JsonPath } from './check';
import type {
  Declaration,
  DeclaredQueue,
  DeclaredSchedule,
  DeclaredTemplate,
  DeclaredWorkflow,
  ObjectLocation,
  ObjectType,
  OverlapPolicy,
  ParseResult,
  QueueSettings,
  Reference,
  TemplateParam,
} from './model';
import { checkPlaceholders, checkTargets, groupOf, isBackoff, optionsOf, payloadOf, stringOf, uniqueOptionsOf } from './jobFields';
import { jobTemplateOf } from './params';
import { readWorkflows } from './workflows';
import { resolveWorkflowParams } from './workflowJobs';
import { WORKFLOW_SCHEDULE_JOB } from '../domain/rules/declaration';
import { LineIndex } from './positions';
import { FILE_SPEC, QUEUE_SPEC, SCHEDULE_SPEC, TEMPLATE_SPEC, WORKFLOW_SPEC, type ObjectSpec } from './spec';
import { closest } from './suggest';
import { errorMessage } from '../protocol/errors';

/**
 * How deeply arrays and objects may nest. jsonc-parser recurses per level and overflows the stack
 * near 10,000; a jobs file needs a handful, a payload a few dozen.
 */
export const MAX_DEPTH = 256;

/**
 * Syntax errors reported one by one before the rest are summed up: junk gives one error every
 * few characters, and a million diagnostics help nobody (and slow an editor to a crawl).
 */
const MAX_SYNTAX_PROBLEMS = 100;

/** The jsonc-parser error names as sentences. */
const SYNTAX_MESSAGES: Readonly<Record<string, string>> = {
  InvalidSymbol: 'Unexpected character: a value here must be an object, an array, a string, a number, true, false or null.',
  InvalidNumberFormat: 'Invalid number: use digits with an optional fraction and exponent (no leading zeros, hex or NaN).',
  PropertyNameExpected: 'Expected a field name in double quotes.',
  ValueExpected: 'Expected a value: an object, an array, a string, a number, true, false or null.',
  ColonExpected: 'Expected a colon (:) after the field name.',
  CommaExpected: 'Expected a comma (,) between entries.',
  CloseBraceExpected: 'Expected a closing brace (}) to end the object.',
  CloseBracketExpected: 'Expected a closing bracket (]) to end the array.',
  EndOfFileExpected: 'Expected the end of the file: the file is one object, and nothing may follow it.',
  InvalidCommentToken: 'Invalid comment: use // to the end of the line or /* … */.',
  UnexpectedEndOfComment: 'The comment is not closed: end it with */.',
  UnexpectedEndOfString: 'The string is not closed: end it with a double quote on the same line.',
  UnexpectedEndOfNumber: 'The number is cut short: give digits after the "." or "e".',
  InvalidUnicode: 'Invalid \\u escape: use four hex digits, e.g. \\u00e9.',
  InvalidEscapeCharacter: 'Invalid escape: use \\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX.',
  InvalidCharacter: 'Invalid character in a string: write control characters as escapes (\\n, \\t).',
};

/** The text as a jobs file: see the module comment. */
export function parseJobsFile(text: string): ParseResult {
  const lines = new LineIndex(text);
  const checker = new Checker(text, lines);
  const file = new FileReader(checker);
  try {
    file.read(text);
  } catch (error) {
    // Nothing above should throw; if something does, say so where the user looks rather than
    // taking the caller (a language server) down with it.
    checker.report({ offset: 0, length: 0 }, 'syntax', `The file could not be checked: ${errorMessage(error)}. Please report this.`, []);
  }
  const problems = checker.problems.sort((a, b) => a.range.offset - b.range.offset);
  const partial = file.declaration();
  return {
    declaration: problems.some((p) => p.severity === 'error') ? null : partial,
    partial,
    problems,
    locations: file.locations,
    references: file.references,
    workflows: file.workflows,
    tree: file.tree,
  };
}

/** The parser's errors, those at one offset together (a file cut short misses a closer per open bracket there). */
function atOnePlace(errors: readonly ParseError[]): [ParseError, ...ParseError[]][] {
  const groups: [ParseError, ...ParseError[]][] = [];
  for (const e of errors) {
    const last = groups[groups.length - 1];
    if (last !== undefined && last[0].offset === e.offset) last.push(e);
    else groups.push([e]);
  }
  return groups;
}

/**
 * One message for the errors at one place: closers missing there become the closers to add, in
 * order ("Expected }]} here…"), rather than the same message once per open bracket.
 */
function syntaxMessage(group: readonly [ParseError, ...ParseError[]]): string {
  const names = group.map((e) => printParseErrorCode(e.error));
  const closers = names.map((name) => (name === 'CloseBraceExpected' ? '}' : name === 'CloseBracketExpected' ? ']' : null));
  if (group.length > 1 && closers.every((c) => c !== null)) {
    return `Expected ${closers.join('')} here: ${group.length} objects or arrays are still open.`;
  }
  return [...new Set(names)].map((name) => SYNTAX_MESSAGES[name] ?? `JSON syntax error (${name}).`).join(' ');
}

/** The first bracket nested deeper than MAX_DEPTH, found with the scanner (which does not recurse). */
function tooDeep(text: string): number | null {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let token = scanner.scan(); token !== 17 /* EOF */; token = scanner.scan()) {
    if (token === 1 /* { */ || token === 3 /* [ */) {
      if (++depth > MAX_DEPTH) return scanner.getTokenOffset();
    } else if (token === 2 /* } */ || token === 4 /* ] */) depth--;
  }
  return null;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

function stringRecord(v: unknown): Record<string, string> | undefined {
  if (!isRecord(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, item] of Object.entries(v)) if (typeof item === 'string') out[k] = item;
  return out;
}

function isRateLimit(v: unknown): v is RateLimit {
  return isRecord(v) && typeof v['perSecond'] === 'number' && typeof v['burst'] === 'number';
}

/** A template as read, with the nodes the meaning checks need. */
interface TemplateRead {
  template: DeclaredTemplate | null;
  /** Its parameters' names (even when the template itself has an error). */
  params: Record<string, TemplateParam>;
  queueNode?: Node;
}

/** A schedule as read, waiting for the meaning checks to resolve its template. */
interface ScheduleRead {
  name: string;
  keyNode: Node;
  values: Record<string, unknown>;
  nodes: Record<string, Node>;
}

/** Reads one file: holds what is found until the declaration is put together. */
class FileReader {
  readonly locations: ObjectLocation[] = [];
  readonly references: Reference[] = [];
  tree: Node | undefined;
  workflows: DeclaredWorkflow[] = [];
  private project = '';
  private readonly queues: DeclaredQueue[] = [];
  private readonly templateReads = new Map<string, TemplateRead>();
  private readonly schedules: DeclaredSchedule[] = [];
  private readonly queueNames = new Set<string>();

  constructor(private readonly checker: Checker) {}

  read(raw: string): void {
    // A byte-order mark (some Windows editors write one) is read as a space: offsets stay put.
    const text = raw.charCodeAt(0) === 0xfeff ? ` ${raw.slice(1)}` : raw;
    const deep = tooDeep(text);
    if (deep !== null) {
      this.checker.report({ offset: deep, length: 1 }, 'too-deep', `Arrays and objects nest more than ${MAX_DEPTH} deep here; a jobs file needs a few levels. Check for unclosed brackets.`, []);
      return;
    }
    const errors: ParseError[] = [];
    const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
    this.tree = root;
    for (const group of atOnePlace(errors.slice(0, MAX_SYNTAX_PROBLEMS))) {
      const e = group[0];
      this.checker.report({ offset: e.offset, length: Math.max(e.length, 1) }, 'syntax', syntaxMessage(group), []);
    }
    const more = errors[MAX_SYNTAX_PROBLEMS];
    if (more !== undefined) {
      this.checker.report({ offset: more.offset, length: Math.max(more.length, 1) }, 'syntax', `${errors.length - MAX_SYNTAX_PROBLEMS} more JSON syntax errors from here on; fix the ones above first.`, []);
    }
    if (root === undefined) {
      if (errors.length === 0) this.checker.report({ offset: 0, length: 0 }, 'missing-required', 'The file is empty: it needs at least { "project": "<name>" }.', ['project']);
      return;
    }
    const top = this.checker.object(root, FILE_SPEC, [], { manual: ['queues', 'templates', 'schedules', 'workflows'] });
    if (top === null) return;
    this.project = str(top.values['project']) ?? '';
    this.eachEntry(top.nodes['queues'], 'queues', 'queue', (name, keyNode, value, path) => this.queue(name, keyNode, value, path));
    this.eachEntry(top.nodes['templates'], 'templates', 'template', (name, keyNode, value, path) => this.template(name, keyNode, value, path));
    const schedules: ScheduleRead[] = [];
    this.eachEntry(top.nodes['schedules'], 'schedules', 'schedule', (name, keyNode, value, path) => {
      const read = this.checker.object(value, SCHEDULE_SPEC, path, { nameNode: keyNode });
      if (read !== null) schedules.push({ name, keyNode, ...read });
    });
    // References are checked once every map is read: a schedule may come before its template.
    for (const [name, read] of this.templateReads) this.checkQueueRef(name, read);
    this.workflows = readWorkflows(this.checker, top.nodes['workflows'], this.templateReads, this.queueNames);
    const workflowsNode = top.nodes['workflows'];
    const workflowNames = workflowsNode?.type === 'object' ? members(workflowsNode).map((m) => m.key) : [];
    for (const s of schedules) this.schedule(s, workflowNames);
  }

  /** Every entry of the queues, templates or schedules map, names checked, each handed to `each`. */
  private eachEntry(node: Node | undefined, section: string, type: ObjectType, each: (name: string, keyNode: Node, value: Node, path: JsonPath) => void): void {
    if (node === undefined) return;
    const spec = FILE_SPEC.fields[section];
    if (spec?.kind !== 'map') return;
    if (node.type !== 'object') {
      this.checker.report(node, 'wrong-type', `${section} must be an object of ${type}s by name (got ${node.type === 'array' ? 'an array' : node.type})`, [section], { allowed: 'an object' });
      return;
    }
    const seen = new Map<string, Node>();
    for (const { key, keyNode, value } of members(node)) {
      const path = [section, key];
      if (!this.checker.unique(key, keyNode, seen, path, [section])) continue;
      if (!spec.keys.pattern.test(key)) {
        this.checker.report(keyNode, 'invalid-name', `${pathText([section])} has the name "${key.length > 60 ? `${key.slice(0, 57)}...` : key}": a ${type} name must be ${spec.keys.allowed}.`, path, {
          allowed: spec.keys.allowed,
        });
        continue;
      }
      if (value === undefined) continue;
      if (type === 'queue') this.queueNames.add(key);
      this.locations.push({ type, name: key, key: this.checker.lines.span(keyNode.offset, keyNode.length), value: this.checker.lines.span(value.offset, value.length) });
      each(key, keyNode, value, path);
    }
  }

  private queue(name: string, keyNode: Node, node: Node, path: JsonPath): void {
    const read = this.checker.object(node, QUEUE_SPEC, path, { nameNode: keyNode });
    if (read === null) return;
    const v = read.values;
    const settings: QueueSettings = {};
    if ('concurrency' in v) settings.concurrency = num(v['concurrency']) ?? null;
    if ('rateLimit' in v) settings.rateLimit = isRateLimit(v['rateLimit']) ? v['rateLimit'] : null;
    if ('attempts' in v) settings.maxAttempts = num(v['attempts']);
    if (isBackoff(v['backoff'])) settings.backoff = v['backoff'];
    if ('timeout' in v) settings.timeoutMs = num(v['timeout']);
    if ('retention' in v) settings.retentionMs = num(v['retention']) ?? null;
    if (typeof v['paused'] === 'boolean') settings.paused = v['paused'];
    if ('groupConcurrency' in v) settings.groupConcurrency = num(v['groupConcurrency']) ?? null;
    if ('groupRate' in v) settings.groupRate = isRateLimit(v['groupRate']) ? v['groupRate'] : null;
    if ('groupWeights' in v) settings.groupWeights = weightsOf(v['groupWeights']);
    if ('expireAfter' in v) settings.expireAfterMs = num(v['expireAfter']) ?? null;
    if ('ageing' in v) settings.ageing = typeof v['ageing'] === 'string' ? v['ageing'] : null;
    if ('retry' in v) {
      const rule = this.retryRule(v['retry'], node, [...path, 'retry']);
      if (rule !== undefined) settings.retry = rule;
    }
    this.queues.push({ name, settings });
  }

  /** A queue's `retry`, checked by the domain's rule; a refusal is reported at the field, and the rule left out. */
  private retryRule(value: unknown, queueNode: Node, path: JsonPath): RetryRule | null | undefined {
    if (value === null) return null;
    try {
      return retryRule(value, pathText(path));
    } catch (error) {
      const at = members(queueNode).find((m) => m.key === 'retry')?.value ?? queueNode;
      this.checker.report(at, 'not-allowed', errorMessage(error), path, { allowed: '{ on?, never? } with exitCodes, httpStatus and errors' });
      return undefined;
    }
  }

  private template(name: string, keyNode: Node, node: Node, path: JsonPath): void {
    const kindNode = node.type === 'object' ? members(node).find((m) => m.key === 'kind')?.value : undefined;
    const group = groupOf(stringOf(kindNode));
    const read = this.checker.object(node, TEMPLATE_SPEC, path, { nameNode: keyNode, ...(group !== undefined ? { group } : {}) });
    if (read === null) return;
    const v = read.values;
    const params: Record<string, TemplateParam> = {};
    if (isRecord(v['params'])) {
      for (const [p, spec] of Object.entries(v['params'])) {
        if (!isRecord(spec)) continue;
        const param: TemplateParam = {};
        const def = str(spec['default']);
        const description = str(spec['description']);
        if (def !== undefined) param.default = def;
        if (description !== undefined) param.description = description;
        params[p] = param;
      }
    } else if (read.nodes['params'] !== undefined) {
      // Unreadable params: take the names as written, so their uses are not reported as well.
      const paramsNode = read.nodes['params'];
      if (paramsNode.type === 'object') for (const m of members(paramsNode)) setEntry(params, m.key, {});
    }
    const entry: TemplateRead = { template: null, params };
    const queueNode = read.nodes['queue'];
    if (queueNode !== undefined) entry.queueNode = queueNode;
    this.templateReads.set(name, entry);

    // The field the kind needs, and the payload made of the kind's fields.
    const needs = group === 'shell' ? 'command' : group === 'http' ? 'url' : group === 'custom' ? 'payload' : undefined;
    if (needs !== undefined && read.nodes[needs] === undefined) {
      this.checker.missing(node, keyNode, needs, TEMPLATE_SPEC.fields[needs]?.description ?? '', path);
    }
    checkPlaceholders(this.checker, read.nodes, Object.keys(params), path, `${pathText(path)} does not declare`, 'Declare it under "params" (with a default if every use may leave it out).');
    checkTargets(this.checker, read.nodes, path);
    const kind = str(v['kind']);
    const queue = str(v['queue']);
    if (kind === undefined || queue === undefined || group === undefined || (needs !== undefined && !(needs in v))) return;
    const payload = payloadOf(group, v);
    const options = { ...optionsOf(v), ...uniqueOptionsOf(this.checker, read.nodes, v, path) };
    if ('retry' in v) {
      const rule = this.retryRule(v['retry'], node, [...path, 'retry']);
      if (rule !== undefined) options.retry = rule;
    }
    const template: DeclaredTemplate = { name, queue, kind, payload, options, params };
    const description = str(v['description']);
    if (description !== undefined) template.description = description;
    entry.template = template;
  }

  private checkQueueRef(name: string, read: TemplateRead): void {
    const node = read.queueNode;
    const queue = stringOf(node);
    if (node === undefined || queue === undefined) return;
    this.references.push({ from: { type: 'template', name }, to: { type: 'queue', name: queue }, range: this.checker.lines.span(node.offset, node.length) });
    if (this.queueNames.has(queue)) return;
    const near = closest(queue, this.queueNames);
    // A warning: a queue is made on first use, so the job still runs; the file just does not
    // manage that queue's settings (and the language server says whether the daemon has it).
    this.checker.report(
      node,
      'unknown-queue',
      `templates.${name}.queue names the queue "${queue}", which this file does not declare under "queues": the daemon makes it on first use with default settings.${near !== undefined ? ` Did you mean "${near}"?` : ''}`,
      ['templates', name, 'queue'],
      { severity: 'warning', allowed: [...this.queueNames].join(', ') || 'no queues are declared', ...(near !== undefined ? { suggestion: near } : {}) },
    );
  }

  private schedule(s: ScheduleRead, workflowNames: readonly string[]): void {
    const path: JsonPath = ['schedules', s.name];
    const templateNode = s.nodes['template'];
    const workflowNode = s.nodes['workflow'];
    if (workflowNode !== undefined && templateNode !== undefined) {
      this.checker.report(workflowNode, 'not-allowed', `${pathText(path)} gives both "template" and "workflow": a schedule enqueues a template's job or starts a workflow, not both. Remove one.`, [...path, 'workflow'], {
        allowed: 'either "template" or "workflow"',
      });
      return;
    }
    if (workflowNode !== undefined) {
      this.workflowSchedule(s, path, workflowNode, workflowNames);
      return;
    }
    if (templateNode === undefined) {
      const keyNode = s.keyNode;
      this.checker.report(keyNode, 'missing-required', `${pathText(path)} needs "template" (the template it enqueues) or "workflow" (the workflow it starts).`, [...path, 'template'], {
        allowed: 'a template or a workflow',
      });
      return;
    }
    const templateName = str(s.values['template']);
    if (templateNode === undefined || templateName === undefined) return;
    this.references.push({ from: { type: 'schedule', name: s.name }, to: { type: 'template', name: templateName }, range: this.checker.lines.span(templateNode.offset, templateNode.length) });
    const read = this.templateReads.get(templateName);
    if (read === undefined) {
      const near = closest(templateName, this.templateReads.keys());
      const names = [...this.templateReads.keys()];
      this.checker.report(
        templateNode,
        'unknown-template',
        `${pathText([...path, 'template'])} names the template "${templateName}", which this file does not declare${near !== undefined ? `. Did you mean "${near}"?` : ''} (templates: ${names.join(', ') || 'none'}).`,
        [...path, 'template'],
        { allowed: names.join(', ') || 'no templates are declared', ...(near !== undefined ? { suggestion: near } : {}) },
      );
      return;
    }
    const given = stringRecord(s.values['params']) ?? {};
    const paramsNode = s.nodes['params'];
    let ok = true;
    if (paramsNode?.type === 'object') {
      for (const m of members(paramsNode)) {
        if (Object.hasOwn(read.params, m.key)) continue;
        ok = false;
        const declared = Object.keys(read.params);
        const near = closest(m.key, declared);
        this.checker.report(
          m.keyNode,
          'unknown-param',
          `${pathText([...path, 'params'])} gives "${m.key}", which template "${templateName}" does not take${near !== undefined ? `. Did you mean "${near}"?` : ''} (its parameters: ${declared.join(', ') || 'none'}).`,
          [...path, 'params', m.key],
          { allowed: declared.join(', ') || 'none', ...(near !== undefined ? { suggestion: near } : {}) },
        );
      }
    }
    const missing = Object.entries(read.params).filter(([p, spec]) => spec.default === undefined && !Object.hasOwn(given, p) && !(paramsNode?.type === 'object' && members(paramsNode).some((m) => m.key === p)));
    if (missing.length > 0) {
      ok = false;
      const names = missing.map(([p]) => `"${p}"`).join(', ');
      const at = paramsNode !== undefined ? (paramsNode.parent?.children?.[0] ?? paramsNode) : templateNode;
      this.checker.report(at, 'missing-param', `${pathText(path)} gives no value for ${names} of template "${templateName}", which has no default: add it under "params".`, [...path, 'params'], {
        allowed: Object.keys(read.params).join(', '),
      });
    }
    const cron = str(s.values['cron']);
    if (!ok || read.template === null || cron === undefined) return;
    const values: Record<string, string> = {};
    for (const [p, spec] of Object.entries(read.params)) {
      const value = Object.hasOwn(given, p) ? given[p] : spec.default;
      if (value !== undefined) values[p] = value;
    }
    this.schedules.push({
      name: s.name,
      cron,
      timezone: str(s.values['timezone']) ?? DEFAULT_TIMEZONE,
      template: templateName,
      params: given,
      enabled: typeof s.values['enabled'] === 'boolean' ? s.values['enabled'] : true,
      missedPolicy: missedPolicy(s.values['missedPolicy']),
      overlapPolicy: overlapPolicy(s.values['overlapPolicy']),
      queue: read.template.queue,
      job: jobTemplateOf(read.template, values),
    });
  }

  /** A schedule that starts a workflow: the workflow must be declared, and the values fit its parameters. */
  private workflowSchedule(s: ScheduleRead, path: JsonPath, workflowNode: Node, workflowNames: readonly string[]): void {
    const name = str(s.values['workflow']);
    if (name === undefined) return;
    this.references.push({ from: { type: 'schedule', name: s.name }, to: { type: 'workflow', name }, range: this.checker.lines.span(workflowNode.offset, workflowNode.length) });
    if (!workflowNames.includes(name)) {
      const near = closest(name, workflowNames);
      this.checker.report(
        workflowNode,
        'unknown-workflow',
        `${pathText([...path, 'workflow'])} names the workflow "${name}", which this file does not declare${near !== undefined ? `. Did you mean "${near}"?` : ''} (workflows: ${workflowNames.join(', ') || 'none'}).`,
        [...path, 'workflow'],
        { allowed: workflowNames.join(', ') || 'no workflows are declared', ...(near !== undefined ? { suggestion: near } : {}) },
      );
      return;
    }
    // A workflow with errors of its own is reported there; its schedule waits for it.
    const workflow = this.workflows.find((w) => w.name === name);
    const cron = str(s.values['cron']);
    if (workflow === undefined || cron === undefined) return;
    const given = stringRecord(s.values['params']) ?? {};
    const resolved = resolveWorkflowParams(workflow, given);
    if (!resolved.ok) {
      // The file's words, not the command line's: a value missing goes under "params".
      const message = resolved.message.replace(/ \(give it with --param [^)]*\)$/, ': add it under "params"');
      this.checker.report(s.nodes['params'] ?? workflowNode, 'workflow-params', `${pathText(path)}: ${message}.`, [...path, 'params'], { allowed: Object.keys(workflow.params).join(', ') || 'none' });
      return;
    }
    this.schedules.push({
      name: s.name,
      cron,
      timezone: str(s.values['timezone']) ?? DEFAULT_TIMEZONE,
      template: '',
      workflow: name,
      params: given,
      enabled: typeof s.values['enabled'] === 'boolean' ? s.values['enabled'] : true,
      missedPolicy: missedPolicy(s.values['missedPolicy']),
      overlapPolicy: overlapPolicy(s.values['overlapPolicy']),
      ...WORKFLOW_SCHEDULE_JOB,
    });
  }

  /** What was read, errors left out. */
  declaration(): Declaration {
    const templates: DeclaredTemplate[] = [];
    for (const read of this.templateReads.values()) if (read.template !== null) templates.push(read.template);
    const declaration: Declaration = { project: this.project, queues: this.queues, templates, schedules: this.schedules };
    // Left out when the file has none, so a declaration without workflows reads as before.
    if (this.workflows.length > 0) declaration.workflows = this.workflows;
    return declaration;
  }
}

function missedPolicy(v: unknown): MissedRunPolicy {
  return v === 'runOnce' ? 'runOnce' : 'skip';
}

function overlapPolicy(v: unknown): OverlapPolicy {
  return v === 'skip' ? 'skip' : 'allow';
}

/** The spec an object type is read with (for the language server's field documentation). */
export const OBJECT_SPECS: Readonly<Record<ObjectType, ObjectSpec>> = { queue: QUEUE_SPEC, template: TEMPLATE_SPEC, workflow: WORKFLOW_SPEC, schedule: SCHEDULE_SPEC };

/** Fairness weights as the checker read them (each a number), or null. */
function weightsOf(v: unknown): Record<string, number> | null {
  if (!isRecord(v)) return null;
  const weights: Record<string, number> = {};
  for (const [key, weight] of Object.entries(v)) if (typeof weight === 'number') weights[key] = weight;
  return Object.keys(weights).length === 0 ? null : weights;
}
