import {
  IndentationText,
  Project,
  QuoteKind,
  SyntaxKind,
  type ObjectLiteralExpression,
  type SourceFile,
} from 'ts-morph';

/**
 * Edits of user-owned files, with ts-morph: a handler stub is inserted into the handlers object and an import
 * added where one is missing; every other byte stays as the user wrote it. A file that does not parse, or no
 * longer has the handlers object, is left alone and the caller tells the user what to add by hand.
 */
const project = new Project({
  useInMemoryFileSystem: true,
  // what is inserted looks like the rest of a generated project (see its .prettierrc.json)
  manipulationSettings: {
    indentationText: IndentationText.TwoSpaces,
    quoteKind: QuoteKind.Single,
    useTrailingCommas: true,
  },
});

export interface HandlerStub {
  /** the property of the handlers object */
  name: string;
  doc: string;
  /** the route, for the 501 message */
  path: string;
}

export type Growth =
  { kind: 'grown'; text: string; added: string[] } | { kind: 'untouched' } | { kind: 'unreadable'; reason: string };

function parse(text: string): SourceFile | string {
  const file = project.createSourceFile(`/handlers-${Math.random().toString(36).slice(2)}.ts`, text, {
    overwrite: true,
  });
  const errors = project.getProgram().getSyntacticDiagnostics(file);
  if (errors.length > 0) {
    project.removeSourceFile(file);
    return `it does not parse (${String(errors[0]?.getMessageText())})`;
  }
  return file;
}

function handlersObject(file: SourceFile, variable: string): ObjectLiteralExpression | undefined {
  return file.getVariableDeclaration(variable)?.getInitializerIfKind(SyntaxKind.ObjectLiteralExpression);
}

/** The names of the handlers in a handlers file, or undefined when it cannot be read as one. */
export function handlerNames(text: string, variable: string): string[] | undefined {
  const file = parse(text);
  if (typeof file === 'string') return undefined;
  const names = handlersObject(file, variable)
    ?.getProperties()
    .flatMap((p) =>
      p.isKind(SyntaxKind.MethodDeclaration) || p.isKind(SyntaxKind.PropertyAssignment) ? [p.getName()] : [],
    );
  project.removeSourceFile(file);
  return names;
}

/** Adds a stub for every handler in `stubs` that the file does not have yet: it answers 501 until written. */
export function growHandlers(text: string, variable: string, stubs: readonly HandlerStub[]): Growth {
  return grow(text, variable, stubs, (object, stub) => {
    object.addMethod({
      name: stub.name,
      isAsync: true,
      docs: [stub.doc],
      parameters: [{ name: '_context' }],
      statements: [`throw notImplemented(${singleQuoted(stub.path)});`],
    });
    ensureImport(object.getSourceFile(), 'notImplemented', '../http/problem.js');
  });
}

/** Adds a stub for every computed field in `stubs` that the file does not value yet: it gives null until written. */
export function growComputed(text: string, variable: string, stubs: readonly { name: string; doc: string }[]): Growth {
  return grow(text, variable, stubs, (object, stub) => {
    object.addMethod({
      name: stub.name,
      docs: [stub.doc],
      parameters: [{ name: '_record' }],
      statements: ['return null;'],
    });
  });
}

/** The stubs the object `variable` lacks, added by `add`; every other byte of the file stays as it was. */
function grow<S extends { name: string }>(
  text: string,
  variable: string,
  stubs: readonly S[],
  add: (object: ObjectLiteralExpression, stub: S) => void,
): Growth {
  const file = parse(text);
  if (typeof file === 'string') return { kind: 'unreadable', reason: file };
  try {
    const object = handlersObject(file, variable);
    if (object === undefined) return { kind: 'unreadable', reason: `it has no \`export const ${variable} = { … }\`` };
    const missing = stubs.filter((stub) => object.getProperty(stub.name) === undefined);
    if (missing.length === 0) return { kind: 'untouched' };
    for (const stub of missing) add(object, stub);
    return { kind: 'grown', text: file.getFullText(), added: missing.map((s) => s.name) };
  } finally {
    project.removeSourceFile(file);
  }
}

const singleQuoted = (text: string): string => `'${text.replace(/[\\']/g, '\\$&').replace(/\n/g, '\\n')}'`;

function ensureImport(file: SourceFile, name: string, from: string): void {
  const declaration = file.getImportDeclaration((d) => d.getModuleSpecifierValue() === from);
  if (declaration === undefined) {
    file.addImportDeclaration({ namedImports: [name], moduleSpecifier: from });
  } else if (!declaration.getNamedImports().some((i) => i.getName() === name)) {
    declaration.addNamedImport(name);
  }
}

/** What a resource's renaming (`renamedFrom`) changes in a user's file of it: names, old → new. */
export interface Renaming {
  /** the object the generated code imports: `doctorsHandlers` → `physiciansHandlers` */
  variable: readonly [string, string];
  /** the folder of the resource's generated files, as imported: `../resources/doctors` → `../resources/physicians` */
  folder: readonly [string, string];
  /** the prefixes of the names those files export, longest first: `Doctors` → `Physicians`, `Doctor` → `Physician` */
  prefixes: readonly (readonly [string, string])[];
}

export type CarriedOver = { kind: 'carried'; text: string } | { kind: 'unsafe'; reason: string };

/**
 * A user's file of a renamed resource, edited to compile under the new name: its object renamed, its imports of the
 * resource's generated files pointed at the new folder and their names renamed (`DoctorsHandlers` →
 * `PhysiciansHandlers`, with every use in the file; an import under an alias keeps its alias). Unsafe when the file
 * does not parse, has no such object, already uses a new name, or names the old folder otherwise than by named imports.
 */
export function carryOver(text: string, renaming: Renaming): CarriedOver {
  const file = parse(text);
  if (typeof file === 'string') return { kind: 'unsafe', reason: file };
  try {
    const [from, to] = renaming.variable;
    const declaration = file.getVariableDeclaration(from);
    if (declaration === undefined) return { kind: 'unsafe', reason: `it has no \`export const ${from}\`` };
    const renamed = (name: string): string => {
      const prefix = renaming.prefixes.find(([old]) => name.startsWith(old));
      return prefix === undefined ? name : `${prefix[1]}${name.slice(prefix[0].length)}`;
    };
    const [oldFolder, newFolder] = renaming.folder;
    const imports = file
      .getImportDeclarations()
      .filter(
        (d) => d.getModuleSpecifierValue() === oldFolder || d.getModuleSpecifierValue().startsWith(`${oldFolder}/`),
      );
    const names = imports.flatMap((d) => d.getNamedImports().map((i) => i.getName()));
    const used = new Set(file.getDescendantsOfKind(SyntaxKind.Identifier).map((i) => i.getText()));
    const taken = [to, ...names.map(renamed)].find((name) => used.has(name) && !names.includes(name) && name !== from);
    if (taken !== undefined) return { kind: 'unsafe', reason: `it already uses the name ${taken}` };
    for (const declared of imports) {
      if (declared.getDefaultImport() !== undefined || declared.getNamespaceImport() !== undefined) {
        return { kind: 'unsafe', reason: `it imports ${declared.getModuleSpecifierValue()} other than by names` };
      }
      declared.setModuleSpecifier(`${newFolder}${declared.getModuleSpecifierValue().slice(oldFolder.length)}`);
      for (const specifier of declared.getNamedImports()) {
        const name = renamed(specifier.getName());
        if (name === specifier.getName()) continue;
        const node = specifier.getNameNode();
        if (specifier.getAliasNode() === undefined && node.isKind(SyntaxKind.Identifier)) node.rename(name);
        else specifier.setName(name);
      }
    }
    declaration.rename(to);
    const edited = file.getFullText();
    if (edited.includes(`${oldFolder}/`) || edited.includes(`${oldFolder}'`) || edited.includes(`${oldFolder}"`)) {
      return { kind: 'unsafe', reason: `it names ${oldFolder} where restsmith cannot follow it (not an import)` };
    }
    return { kind: 'carried', text: edited };
  } finally {
    project.removeSourceFile(file);
  }
}
