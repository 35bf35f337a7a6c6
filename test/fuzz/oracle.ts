import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Schema } from './schema-arbitrary.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface Response {
  content?: Record<string, { schema: Schema }>;
  headers?: Record<string, Header>;
}

/** A response header as documented, or a reference to one in components.headers. */
interface Header {
  $ref?: string;
  schema?: Schema;
  required?: boolean;
}

export interface Operation {
  method: string;
  /** the path template of the document, e.g. /api/v1/posts/{id} */
  path: string;
  parameters: { name: string; in: string; schema: Schema }[];
  body?: { contentTypes: string[]; schema: Schema };
  responses: Record<string, Response>;
  /** whether the operation needs no token */
  public: boolean;
  /** false for the methods the document does not list for a path, which the fuzzer sends too */
  documented: boolean;
}

/** A parameter as documented: inline, or a reference to one in components.parameters. */
interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  style?: string;
  schema: Schema;
}

interface Document {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: {
    schemas: Record<string, Schema>;
    headers?: Record<string, Header>;
    parameters?: Record<string, Parameter>;
  };
}

/** The operations of an OpenAPI document, and a validator of answers against it. */
export class Oracle {
  readonly operations: Operation[] = [];
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly id = 'urn:fuzz:openapi';

  constructor(private readonly document: Document) {
    addFormats(this.ajv);
    this.ajv.addSchema({ ...document, $id: this.id } as object);
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, raw] of Object.entries(item)) {
        const op = raw as {
          parameters?: Parameter[];
          requestBody?: { content: Record<string, { schema: Schema }> };
          responses: Record<string, Response>;
          security?: unknown[];
        };
        // a stream (Server-Sent Events) never ends: events.test.ts reads it, the fuzzer does not
        if (op.responses['200']?.content?.['text/event-stream'] !== undefined) continue;
        const content = op.requestBody?.content;
        const first = content === undefined ? undefined : Object.values(content)[0];
        this.operations.push({
          method: method.toUpperCase(),
          path,
          parameters: (op.parameters ?? []).flatMap((p) => this.flattened(p)),
          ...(content !== undefined &&
            first !== undefined && {
              body: { contentTypes: Object.keys(content), schema: this.resolve(first.schema) },
            }),
          responses: op.responses,
          // `[{}, { bearer: [] }]`: a token is optional (the event feed shows more with one)
          public:
            op.security !== undefined &&
            (op.security.length === 0 || op.security.some((s) => Object.keys(s as object).length === 0)),
          documented: true,
        });
      }
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        if (item[method.toLowerCase()] !== undefined) continue;
        const parameters = path.includes('{id}') ? [{ name: 'id', in: 'path', schema: {} }] : [];
        this.operations.push({ method, path, parameters, responses: {}, public: false, documented: false });
      }
    }
  }

  /**
   * A parameter as the query string spells it: a reference resolved, and a deepObject filter (`views`, its schema an
   * object of operators) as one parameter an operator, `views[gte]`, and its `eq` also as the bare `views`, which the
   * server takes for it (the listing's description says so).
   */
  private flattened(given: Parameter): Operation['parameters'] {
    const name = given.$ref?.replace('#/components/parameters/', '');
    const parameter = name === undefined ? given : this.document.components.parameters?.[name];
    if (parameter === undefined) throw new Error(`unresolved ${given.$ref}`);
    const { name: named, in: where, style } = parameter;
    if (style !== 'deepObject') return [{ name: named, in: where, schema: parameter.schema }];
    const operators = Object.entries(this.resolve(parameter.schema).properties ?? {});
    if (operators.length === 0) throw new Error(`a deepObject parameter ${named} without operators`);
    const eq = operators.find(([op]) => op === 'eq');
    // an `in` list's values are the field's: an enum's named schema among them
    const resolved = (schema: Schema): Schema => {
      const target = this.resolve(schema);
      return target.items === undefined ? target : { ...target, items: this.resolve(target.items) };
    };
    // an `in` list is documented as one comma-separated string: sent as a list of the field's values, comma-separated
    // (the document's pattern says which for an enum only)
    const list = (schema: Schema): Schema =>
      eq === undefined ? resolved(schema) : { type: 'array', items: resolved(eq[1]) };
    return [
      ...operators.map(([op, schema]) => ({
        name: `${named}[${op}]`,
        in: where,
        schema: op === 'in' ? list(schema) : resolved(schema),
      })),
      ...(eq === undefined ? [] : [{ name: named, in: where, schema: this.resolve(eq[1]) }]),
    ];
  }

  /** `schema` with a top-level $ref replaced by what it points at (the mapper reads properties one level down). */
  resolve(schema: Schema): Schema {
    if (schema.$ref === undefined) return schema;
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = this.document.components.schemas[name];
    if (target === undefined) throw new Error(`unresolved ${schema.$ref}`);
    // what is said beside a $ref (a description, x-default) stays
    const { $ref: _ref, ...beside } = schema;
    return { ...this.resolveDeep(target), ...beside };
  }

  /** The headers of `response` that are always sent (`required: true`), by name. */
  requiredHeaders(response: Response): string[] {
    return Object.entries(response.headers ?? {}).flatMap(([name, header]) => {
      const resolved =
        header.$ref === undefined ? header : this.document.components.headers?.[header.$ref.split('/')[3] ?? ''];
      if (resolved === undefined) throw new Error(`unresolved ${header.$ref}`);
      return resolved.required === true ? [name] : [];
    });
  }

  private resolveDeep(schema: Schema): Schema {
    const resolved = this.resolve(schema);
    if (resolved.properties === undefined) return resolved;
    // a nullable enum is `anyOf: [its $ref, null]`
    const one = (schema: Schema): Schema => {
      const target = this.resolve(schema);
      return target.anyOf === undefined ? target : { ...target, anyOf: target.anyOf.map((s) => this.resolve(s)) };
    };
    const properties = Object.fromEntries(Object.entries(resolved.properties).map(([k, v]) => [k, one(v)]));
    return { ...resolved, properties };
  }

  /** Errors of `body` against the schema of `operation`'s answer `status` in `contentType`; [] when it matches. */
  validate(operation: Operation, status: number, contentType: string, body: unknown): string[] {
    const pointer = ['paths', operation.path, operation.method.toLowerCase(), 'responses', String(status)]
      .map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1'))
      .join('/');
    const response = operation.responses[String(status)];
    if (response?.content?.[contentType] === undefined) return [`no ${contentType} answer ${status} is documented`];
    const validator = this.ajv.getSchema(`${this.id}#/${pointer}/content/${contentType.replace('/', '~1')}/schema`);
    if (validator === undefined) throw new Error(`no schema at ${pointer}`);
    if (validator(body)) return [];
    return (validator.errors ?? []).map(
      (e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
    );
  }

  /** Errors of `value` against the document's component schema `name`; [] when it matches. */
  validateComponent(name: string, value: unknown): string[] {
    const validator = this.ajv.getSchema(`${this.id}#/components/schemas/${name}`);
    if (validator === undefined) throw new Error(`no ${name} schema`);
    if (validator(value)) return [];
    return (validator.errors ?? []).map(
      (e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
    );
  }

  /** Validates against the Problem schema of the document. */
  validateProblem(body: unknown): string[] {
    const validator = this.ajv.getSchema(`${this.id}#/components/schemas/Problem`);
    if (validator === undefined) throw new Error('no Problem schema');
    if (validator(body)) return [];
    return (validator.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
  }
}
