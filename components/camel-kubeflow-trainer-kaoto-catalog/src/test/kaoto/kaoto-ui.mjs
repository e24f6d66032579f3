// Kaoto's own catalog code, runnable in Node: the @kaoto/kaoto package (fetched with npm pack at the pinned version and
// integrity, kept, unpacked), the modules of its lib/ that load a catalog and read it (the dynamic catalog, the tiles of the
// catalog, the schema of a step's form, the reading of a URI), bundled by esbuild with the libraries they import.
// The browser-only libraries (React, PatternFly, Carbon, Monaco) are stand-ins: nothing used here renders.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import * as esbuild from 'esbuild';

export const KAOTO_VERSION = '2.12.0-RC1';
const KAOTO_INTEGRITY =
  'sha512-j0+cnw1QGmxaNoqJ3H+KJbQnLVg1CIR6HzvWElaM0/lk1CeRAkPB9xoEf+3DzmlQO0jds/wG6ApLLVyOfqgo/Q==';

const BROWSER_ONLY = /^(react|react-dom|@patternfly\/|@carbon\/|monaco-editor|monaco-yaml|@monaco-editor\/|@kie-tools-core\/)/;
// any name read from a stand-in is a function returning a stand-in; 'then' stays undefined so nothing awaits one
const STAND_IN = `
  const none = new Set(['then', '__esModule', Symbol.toPrimitive, Symbol.iterator, Symbol.asyncIterator]);
  const any = new Proxy(function () {}, {
    get: (t, k) => (none.has(k) ? undefined : k === 'prototype' ? {} : any),
    apply: () => any,
    construct: () => any,
  });
  const names = new Proxy({}, { get: (t, k) => (none.has(k) ? undefined : any) });
  module.exports = new Proxy({}, { get: (t, k) => (none.has(k) ? undefined : any), getPrototypeOf: () => names });`;

function integrity(file) {
  return 'sha512-' + createHash('sha512').update(readFileSync(file)).digest('base64');
}

/** Kaoto's modules, bundled in the directory (the package fetched once, kept there). */
export async function loadKaoto(directory) {
  const bundle = path.join(directory, `kaoto-${KAOTO_VERSION}.cjs`);
  mkdirSync(directory, { recursive: true });
  const tarball = path.join(directory, `kaoto-kaoto-${KAOTO_VERSION}.tgz`);
  if (!existsSync(tarball)) {
    execFileSync('npm', ['pack', `@kaoto/kaoto@${KAOTO_VERSION}`, '--pack-destination', directory, '--prefer-offline',
      '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  if (integrity(tarball) !== KAOTO_INTEGRITY) {
    rmSync(tarball);
    throw new Error(`${tarball} is not the pinned @kaoto/kaoto ${KAOTO_VERSION} (integrity); deleted`);
  }
  const unpacked = path.join(directory, 'kaoto');
  rmSync(unpacked, { recursive: true, force: true });
  mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
  const lib = path.join(unpacked, 'package', 'lib');
  const entry = path.join(directory, 'kaoto-entry.js');
  writeFileSync(entry, [
    `export { fetchCamelCatalog } from '${lib}/dynamic-catalog/support/fetch-camel-catalog.js';`,
    `export { DynamicCatalogRegistry } from '${lib}/dynamic-catalog/dynamic-catalog-registry.js';`,
    `export { CatalogKind } from '${lib}/models/catalog-kind.js';`,
    `export { camelComponentToTile, kameletToTile } from '${lib}/camel-utils/camel-to-tile.adapter.js';`,
    `export { CamelComponentSchemaService } from '${lib}/models/visualization/flows/support/camel-component-schema.service.js';`,
    `export { CatalogSchemaLoader } from '${lib}/utils/catalog-schema-loader.js';`,
  ].join('\n'));
  await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: bundle,
    nodePaths: [path.join(process.cwd(), 'node_modules')],
    loader: { '.svg': 'dataurl', '.png': 'dataurl', '.css': 'empty', '.scss': 'empty' },
    logLevel: 'error',
    plugins: [{
      name: 'browser-only',
      setup(build) {
        build.onResolve({ filter: BROWSER_ONLY }, (args) => ({ path: args.path, namespace: 'browser-only' }));
        build.onLoad({ filter: /.*/, namespace: 'browser-only' }, () => ({ contents: STAND_IN, loader: 'js' }));
      },
    }],
  });
  return createRequire(import.meta.url)(bundle);
}
