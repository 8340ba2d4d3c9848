/**
 * Generates docs/openrpc.json, the OpenRPC document of Spool's protocol (https://spec.open-rpc.org),
 * from the protocol's tables: the methods and notifications come from `METHODS` and
 * `NOTIFICATIONS` (their summaries, callers, errors), and every params and result schema is
 * computed from the real TypeScript types with the compiler API, their doc comments becoming
 * the descriptions. Nothing here restates a type, so the document cannot drift from the code;
 * test/unit/openrpc.test.ts fails when the committed file is stale.
 *
 * The states of a job are described from the transitions table (`jobStatesDoc` of
 * shared/domain/states.ts): that text is JobState's description here, and the script writes it
 * as JobState's doc comment in shared/protocol/types.ts too, so that the prose cannot drift from the
 * table the engine enforces.
 *
 *   npm run openrpc          writes docs/openrpc.json and JobState's comment in shared/protocol/types.ts
 *
 * Why the compiler API and not a library: none of the JSON Schema generators is among the
 * project's dependencies, and the types at hand (interfaces, literal unions, `Partial`,
 * `Exclude`, `Record`, intersections, arrays) need only the walk below.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import {
  ErrorCode,
  LIMITS,
  METHOD_NAMES,
  METHODS,
  NOTIFICATION_NAMES,
  NOTIFICATIONS,
  PROTOCOL_VERSION,
  type MethodInfo,
  type NotificationInfo,
} from '../shared/protocol';
import { jobStatesDoc } from '../shared/domain/states';

const ROOT = path.resolve(__dirname, '..');
const PROTOCOL_ENTRY = path.join(ROOT, 'shared', 'protocol', 'index.ts');

/** Where the document is kept. */
export const OPENRPC_PATH = path.join(ROOT, 'docs', 'openrpc.json');

/** The file whose JobState doc comment is written from the transitions table. */
export const TYPES_PATH = path.join(ROOT, 'shared', 'protocol', 'types.ts');

/** The JSON Schema (draft 7, as OpenRPC uses) subset the generator writes. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  const?: string | number | boolean;
  enum?: (string | number)[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  pattern?: string;
}

/** An OpenRPC content descriptor: one param, or the result. */
export interface ContentDescriptor {
  name: string;
  description?: string;
  required?: boolean;
  schema: Schema;
}

/** An OpenRPC method object, plus Spool's `x-` extensions. */
export interface OpenRpcMethod {
  name: string;
  summary: string;
  description?: string;
  tags: { name: string }[];
  paramStructure: 'by-name';
  params: ContentDescriptor[];
  result?: ContentDescriptor;
  errors?: { $ref: string }[];
  /** The whole params object as one schema, for generators that build one params type. */
  'x-params'?: Schema;
  /** Who calls it: `client`, `worker` or `both` (see Caller in shared/protocol/define.ts). */
  'x-caller'?: MethodInfo['caller'];
  /** Who may call it over TCP, by token scope (see MethodScope in shared/protocol/define.ts). */
  'x-scope'?: MethodInfo['scope'];
  /** Whether its writes are group-committed with others that arrive together. */
  'x-grouped'?: boolean;
  /** For a notification: the `events.subscribe` topic that brings it. */
  'x-topic'?: NotificationInfo['topic'];
}

/** An OpenRPC error object, plus the `ErrorData` fields the error fills. */
export interface OpenRpcError {
  code: number;
  message: string;
  'x-data'?: string[];
}

/** The document. */
export interface OpenRpcDocument {
  openrpc: string;
  info: { title: string; version: string; description: string };
  servers: { name: string; url: string; summary: string }[];
  methods: OpenRpcMethod[];
  components: { schemas: Record<string, Schema>; errors: Record<string, OpenRpcError> };
  /**
   * OpenRPC describes calls a client makes and the server answers; it has no notion of what a
   * server pushes. Spool's notifications are kept apart in this extension, shaped like method
   * objects without a result, rather than listed in `methods` with a mark: a client generator
   * or an API explorer that reads `methods` would otherwise offer to call `jobs.changed` and
   * wait for an answer that never comes.
   */
  'x-notifications': OpenRpcMethod[];
  /** The limits the daemon enforces (`LIMITS` in shared/protocol/limits.ts), which errors name. */
  'x-limits': typeof LIMITS;
}

/** Builds the document in memory. */
export function buildOpenRpcDocument(): OpenRpcDocument {
  const program = ts.createProgram([PROTOCOL_ENTRY], {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const schemas = new SchemaWriter(program, checker);
  const exports = protocolExports(program, checker);

  const methodsType = checker.getDeclaredTypeOfSymbol(exports('Methods'));
  const methods = METHOD_NAMES.map((name): OpenRpcMethod => {
    const info: MethodInfo = METHODS[name];
    const entry = checker.getTypeOfSymbol(property(checker, methodsType, name));
    const params = checker.getTypeOfSymbol(property(checker, entry, 'params'));
    const result = checker.getTypeOfSymbol(property(checker, entry, 'result'));
    return {
      name,
      summary: info.summary,
      ...(info.description ? { description: info.description } : {}),
      tags: [{ name: name.split('.')[0]! }],
      paramStructure: 'by-name',
      params: schemas.params(params, name),
      result: { name: 'result', schema: schemas.schemaOf(result) },
      errors: info.errors.map((error) => ({ $ref: `#/components/errors/${error}` })),
      ...schemas.paramsObject(params),
      'x-caller': info.caller,
      'x-scope': info.scope,
      'x-grouped': info.grouped,
    };
  });

  const notificationsType = checker.getDeclaredTypeOfSymbol(exports('Notifications'));
  const notifications = NOTIFICATION_NAMES.map((name): OpenRpcMethod => {
    const info: NotificationInfo = NOTIFICATIONS[name];
    const params = checker.getTypeOfSymbol(property(checker, notificationsType, name));
    return {
      name,
      summary: info.summary,
      ...(info.description ? { description: info.description } : {}),
      tags: [{ name: 'events' }],
      paramStructure: 'by-name',
      params: schemas.params(params, name),
      ...schemas.paramsObject(params),
      'x-topic': info.topic,
    };
  });

  schemas.schemaOf(checker.getDeclaredTypeOfSymbol(exports('ErrorData')));
  const components = schemas.definitions();
  // Said from the transitions table, not read back from the comment, so that a stale comment
  // cannot reach the document.
  const jobState = components['JobState'];
  if (jobState === undefined) throw new Error('The protocol no longer refers to JobState; scripts/openrpc.ts describes it.');
  jobState.description = jobStatesDoc();
  return {
    openrpc: '1.3.2',
    info: {
      title: 'Spool',
      version: String(PROTOCOL_VERSION),
      description:
        "Spool's daemon: JSON-RPC 2.0, one message per line, over a Unix socket. `info.version` is the protocol version that `daemon.status` reports as `protocolVersion`. Every error's `data` is an ErrorData naming the field or id at fault. Generated from shared/protocol/ by `npm run openrpc`; docs/protocol.md has the prose and examples.",
    },
    servers: [
      {
        name: 'local',
        url: 'unix:spool.sock',
        summary: 'The Unix socket at $SPOOL_SOCKET, else $XDG_RUNTIME_DIR/spool/spool.sock, else ~/.spool/spool.sock.',
      },
    ],
    methods,
    components: { schemas: components, errors: errorComponents(checker, exports('ErrorCode')) },
    'x-notifications': notifications,
    'x-limits': LIMITS,
  };
}

/** The document as it is written to disk. */
export function renderOpenRpcDocument(): string {
  return JSON.stringify(buildOpenRpcDocument(), null, 2) + '\n';
}

/**
 * shared/protocol/types.ts with JobState's doc comment written from the transitions table: the comment
 * right above `export type JobState` is replaced, the rest of the file kept as it is.
 */
export function renderTypesFile(current: string): string {
  const declaration = current.indexOf('\nexport type JobState ');
  const start = current.lastIndexOf('\n/**', declaration);
  const end = current.lastIndexOf('*/', declaration);
  if (declaration < 0 || start < 0 || end < start || current.slice(end + 2, declaration).trim() !== '') {
    throw new Error('shared/protocol/types.ts must have a doc comment right above `export type JobState`.');
  }
  const comment = ['/**', ...jobStatesDoc().split('\n').map((line) => (line === '' ? ' *' : ` * ${line}`)), ' */'].join('\n');
  return `${current.slice(0, start + 1)}${comment}${current.slice(end + 2)}`;
}

/** Turns TypeScript types into JSON Schemas; named types of the project become components. */
class SchemaWriter {
  private readonly named = new Map<string, Schema>();
  /** Which declaration each component name stands for: two types of one name would collide. */
  private readonly owners = new Map<string, ts.Symbol>();

  constructor(
    private readonly program: ts.Program,
    private readonly checker: ts.TypeChecker,
  ) {}

  /** The components written so far, by name. */
  definitions(): Record<string, Schema> {
    return Object.fromEntries([...this.named.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  /** A method's params, one content descriptor per member of its params object (by-name). */
  params(type: ts.Type, method: string): ContentDescriptor[] {
    const object = this.withoutUndefined(type);
    if (object.length !== 1) throw new Error(`The params of ${method} must be one object type, not ${this.checker.typeToString(type)}.`);
    return this.checker.getPropertiesOfType(object[0]!).map((member) => {
      const description = this.docOf(member);
      return {
        name: member.name,
        ...(description ? { description } : {}),
        required: (member.flags & ts.SymbolFlags.Optional) === 0,
        schema: this.schemaOf(this.declaredTypeOf(member)),
      };
    });
  }

  /** `x-params`: the params object as one schema, when the method takes any. */
  paramsObject(type: ts.Type): { 'x-params'?: Schema } {
    const object = this.withoutUndefined(type);
    if (object.length !== 1 || this.checker.getPropertiesOfType(object[0]!).length === 0) return {};
    return { 'x-params': this.schemaOf(object[0]!) };
  }

  /** The schema of a type: a `$ref` for a named type of the project, else written out. */
  schemaOf(type: ts.Type): Schema {
    const named = this.nameOf(type);
    if (named === undefined) return this.inline(type);
    const [name, symbol] = named;
    const owner = this.owners.get(name);
    if (owner === undefined) {
      this.owners.set(name, symbol);
      // Set before the walk, so that a type that refers to itself finds its own entry.
      const schema: Schema = {};
      this.named.set(name, schema);
      const description = this.docOf(symbol);
      Object.assign(schema, description ? { description } : {}, this.inline(type));
    } else if (owner !== symbol) {
      throw new Error(`Two protocol types are named ${name}; the OpenRPC components need distinct names.`);
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  private inline(type: ts.Type): Schema {
    const { flags } = type;
    if (flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) return {};
    if (flags & ts.TypeFlags.String) return { type: 'string' };
    if (flags & ts.TypeFlags.Number) return { type: 'number' };
    if (flags & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (flags & ts.TypeFlags.Null) return { type: 'null' };
    if (type.isStringLiteral() || type.isNumberLiteral()) return { const: type.value };
    if (flags & ts.TypeFlags.BooleanLiteral) return { const: type === this.checker.getTrueType() };
    if (type.isUnion()) return this.union(type);
    if (this.checker.isArrayType(type)) {
      const [item] = this.checker.getTypeArguments(type as ts.TypeReference);
      return { type: 'array', items: item ? this.schemaOf(item) : {} };
    }
    if (flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) return this.object(type);
    // `payload.${string}`: the literal texts around each placeholder, anything in between.
    if (flags & ts.TypeFlags.TemplateLiteral) {
      const texts = (type as ts.TemplateLiteralType).texts.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      return { type: 'string', pattern: `^${texts.join('.+')}$` };
    }
    throw new Error(`No JSON Schema for the type ${this.checker.typeToString(type)}; extend scripts/openrpc.ts.`);
  }

  private union(type: ts.UnionType): Schema {
    const members = this.withoutUndefined(type);
    const hasTrue = members.some((m) => m === this.checker.getTrueType());
    const hasFalse = members.some((m) => m === this.checker.getFalseType());
    const parts = members.filter((m) => !(hasTrue && hasFalse && m.flags & ts.TypeFlags.BooleanLiteral));
    const schemas = parts.map((m) => this.schemaOf(m));
    if (hasTrue && hasFalse) schemas.push({ type: 'boolean' });
    if (schemas.length === 1) return schemas[0]!;
    const literals = schemas.flatMap((s) => (typeof s.const === 'string' ? [s.const] : []));
    if (literals.length === schemas.length) return { type: 'string', enum: literals };
    // `number | null` and the like: one `type` list reads better than anyOf.
    const primitives = schemas.flatMap((s) => (typeof s.type === 'string' && Object.keys(s).length === 1 ? [s.type] : []));
    if (primitives.length === schemas.length) return { type: primitives };
    return { anyOf: schemas };
  }

  private object(type: ts.Type): Schema {
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const member of this.checker.getPropertiesOfType(type)) {
      const schema = this.schemaOf(this.declaredTypeOf(member));
      const description = this.docOf(member);
      // A $ref stands alone in draft 7: a description beside it would be ignored.
      properties[member.name] = description && schema.$ref === undefined ? { description, ...schema } : schema;
      if ((member.flags & ts.SymbolFlags.Optional) === 0) required.push(member.name);
    }
    const schema: Schema = { type: 'object', properties };
    if (required.length > 0) schema.required = required;
    for (const index of this.checker.getIndexInfosOfType(type)) {
      if (!(index.keyType.flags & ts.TypeFlags.String)) continue;
      // `Record<string, never>`: an object that may hold nothing (the params of daemon.status).
      schema.additionalProperties = index.type.flags & ts.TypeFlags.Never ? false : this.schemaOf(index.type);
    }
    if (Object.keys(properties).length === 0) delete schema.properties;
    return schema;
  }

  /**
   * A member's type as declared, without the `undefined` its `?` adds: the declared type keeps
   * its alias (`JobState`), which the widened `JobState | undefined` loses. Members of mapped
   * types (`Record<JobState, number>`) have no declaration of their own and use the computed type.
   */
  private declaredTypeOf(member: ts.Symbol): ts.Type {
    const declaration = member.valueDeclaration;
    if (declaration && (ts.isPropertySignature(declaration) || ts.isPropertyDeclaration(declaration)) && declaration.type) {
      const declared = this.checker.getTypeFromTypeNode(declaration.type);
      // A member typed by a generic's parameter (`applied?: Applied` in shared/jobsfile's
      // LiveObject) has its instantiated type only as the computed one.
      if (!(declared.flags & ts.TypeFlags.TypeParameter)) return declared;
      return this.checker.getNonNullableType(this.checker.getTypeOfSymbol(member));
    }
    return this.checker.getTypeOfSymbol(member);
  }

  /** A named, non-generic type declared in the project (not in a library), and its symbol. */
  private nameOf(type: ts.Type): [string, ts.Symbol] | undefined {
    const alias = type.aliasSymbol;
    if (alias) {
      return !type.aliasTypeArguments?.length && this.isOurs(alias) ? [alias.name, alias] : undefined;
    }
    const symbol = type.getSymbol();
    if (symbol && symbol.flags & ts.SymbolFlags.Interface && this.isOurs(symbol)) {
      const args = type.flags & ts.TypeFlags.Object ? this.checker.getTypeArguments(type as ts.TypeReference) : [];
      return args.length === 0 ? [symbol.name, symbol] : undefined;
    }
    return undefined;
  }

  private isOurs(symbol: ts.Symbol): boolean {
    return (symbol.declarations ?? []).some((d) => {
      const file = d.getSourceFile();
      return !this.program.isSourceFileDefaultLibrary(file) && !this.program.isSourceFileFromExternalLibrary(file);
    });
  }

  private withoutUndefined(type: ts.Type): ts.Type[] {
    const members = type.isUnion() ? type.types : [type];
    return members.filter((m) => !(m.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)));
  }

  /** The doc comment, line breaks kept: some are Markdown lists (JobState's). */
  private docOf(symbol: ts.Symbol): string {
    return ts.displayPartsToString(symbol.getDocumentationComment(this.checker)).trim();
  }
}

/** The exported symbols of shared/protocol, by name, through re-exports. */
function protocolExports(program: ts.Program, checker: ts.TypeChecker): (name: string) => ts.Symbol {
  const source = program.getSourceFile(PROTOCOL_ENTRY);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`Cannot read ${PROTOCOL_ENTRY} with the TypeScript compiler.`);
  const exported = checker.getExportsOfModule(module);
  return (name) => {
    const symbol = exported.find((s) => s.name === name);
    if (!symbol) throw new Error(`shared/protocol exports no ${name}; scripts/openrpc.ts reads it.`);
    return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  };
}

function property(checker: ts.TypeChecker, type: ts.Type, name: string): ts.Symbol {
  const symbol = checker.getPropertyOfType(type, name);
  if (!symbol) throw new Error(`${checker.typeToString(type)} has no member ${name}.`);
  return symbol;
}

/**
 * Spool's errors, from `ErrorCode` and its doc comments. A comment ends with the `data` fields
 * the error fills ("No job with that id. data.id"): they become `x-data`, the rest the message.
 */
function errorComponents(checker: ts.TypeChecker, errorCode: ts.Symbol): Record<string, OpenRpcError> {
  const type = checker.getTypeOfSymbol(errorCode);
  const errors: Record<string, OpenRpcError> = {};
  for (const [name, code] of Object.entries(ErrorCode)) {
    const doc = ts.displayPartsToString(property(checker, type, name).getDocumentationComment(checker)).replace(/\s*\n\s*/g, ' ').trim();
    if (doc === '') throw new Error(`ErrorCode.${name} has no doc comment; the OpenRPC document needs its message.`);
    const fields = [...doc.matchAll(/\bdata\.(\w+)/g)].map((m) => m[1]!);
    const message = doc.replace(/\s*\bdata\.\w+(,\s*data\.\w+)*\s*$/, '').trim();
    errors[name] = { code, message, ...(fields.length > 0 ? { 'x-data': fields } : {}) };
  }
  return errors;
}

if (require.main === module) {
  // The comment first: the document's schemas are read from the files as they are then.
  fs.writeFileSync(TYPES_PATH, renderTypesFile(fs.readFileSync(TYPES_PATH, 'utf8')));
  console.log(`Wrote JobState's comment in ${path.relative(process.cwd(), TYPES_PATH)}.`);
  fs.writeFileSync(OPENRPC_PATH, renderOpenRpcDocument());
  console.log(`Wrote ${path.relative(process.cwd(), OPENRPC_PATH)}.`);
}
