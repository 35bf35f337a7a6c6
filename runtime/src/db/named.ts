import type { Dialect, Params, Prepared, Row, SqlValue, Statement } from './database.js';

/**
 * Named parameters (`:name`) → the dialect's positional ones, and the names in the order they bind: SQLite's `?` takes
 * one value each (a name used twice binds twice), PostgreSQL's `$n` is reused.
 * Quoted identifiers and string literals are passed over, and so is PostgreSQL's `::` cast. One pass, linear.
 */
export function positional(sql: string, dialect: Dialect): { text: string; names: string[] } {
  const names: string[] = [];
  const text = sql.replace(
    /'(?:[^']|'')*'|"(?:[^"]|"")*"|::|:([A-Za-z_][A-Za-z0-9_]*)/g,
    (token, name?: string) => {
      if (name === undefined) return token;
      if (dialect === 'sqlite') {
        names.push(name);
        return '?';
      }
      const known = names.indexOf(name);
      return `$${known >= 0 ? known + 1 : names.push(name)}`;
    },
  );
  return { text, names };
}

/** A statement of named parameters over one of positional ones: `prepare` is the driver's. */
export function prepareNamed<P extends Params>(
  sql: string,
  dialect: Dialect,
  prepare: (text: string) => Statement,
): Prepared<P> {
  const { text, names } = positional(sql, dialect);
  const statement = prepare(text);
  const bind = (params: P): SqlValue[] =>
    names.map((name) => {
      const value = params[name];
      if (value === undefined) throw new Error(`no value for the parameter :${name}`);
      return value;
    });
  // a binding that leaves a parameter out is refused as every other failure of a statement is: a rejected promise
  // (in each method: one helper for the three would call every statement's methods from one megamorphic site)
  return {
    get: (params: P): Promise<Row | undefined> => {
      try {
        return statement.get(bind(params));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    all: (params: P): Promise<Row[]> => {
      try {
        return statement.all(bind(params));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    run: (params: P): Promise<number> => {
      try {
        return statement.run(bind(params));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    bind: (params: P) => ({ statement, values: bind(params) }),
  };
}
