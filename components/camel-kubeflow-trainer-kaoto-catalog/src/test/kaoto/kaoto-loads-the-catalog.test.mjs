// The catalog the build writes (target/kaoto-catalog), loaded by Kaoto's own code as Kaoto's editor loads the catalog
// of its setting kaoto.catalog.url: the library over HTTP, the chosen definition's index, then fetchCamelCatalog (the
// dynamic catalog's loader); what Kaoto then offers: the tiles of its catalog, the form of a step, a URI read.
import assert from 'node:assert/strict';
import { createReadStream, existsSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { KAOTO_VERSION, loadKaoto } from './kaoto-ui.mjs';

const CATALOG = path.resolve(process.env.KAOTO_CATALOG ?? '../kaoto-catalog');
let server;
let catalogUrl;
let kaoto;

before(async () => {
  kaoto = await loadKaoto(path.resolve('kaoto-ui'));
  server = http.createServer((request, response) => {
    const file = path.join(CATALOG, decodeURIComponent(new URL(request.url, 'http://localhost').pathname));
    if (!file.startsWith(CATALOG + path.sep) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': file.endsWith('.json') ? 'application/json' : 'text/plain' });
    createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  catalogUrl = `http://127.0.0.1:${server.address().port}/index.json`;
});

after(() => server?.close());

/** RuntimeProvider and CatalogLoaderProvider's steps, then Kaoto's loader itself. */
async function select(runtime) {
  const library = await (await fetch(catalogUrl)).json();
  const basePath = catalogUrl.substring(0, catalogUrl.lastIndexOf('/'));
  const definition = library.definitions.find((d) => d.runtime === runtime);
  assert.ok(definition, `a ${runtime} definition in ${library.definitions.map((d) => d.name)}`);
  const indexFile = `${basePath}/${definition.fileName}`;
  const relativeBasePath = kaoto.CatalogSchemaLoader.getRelativeBasePath(indexFile);
  const catalogIndex = (await kaoto.CatalogSchemaLoader.fetchFile(indexFile)).body;
  await kaoto.fetchCamelCatalog({ catalogIndex, relativeBasePath });
  return definition;
}

for (const runtime of ['Main', 'Quarkus']) {
  test(`Kaoto ${KAOTO_VERSION} offers kubeflow-trainer in its catalog of the Camel ${runtime} definition`, async () => {
    const definition = await select(runtime);
    const registry = kaoto.DynamicCatalogRegistry.get();
    const component = await registry.getEntity(kaoto.CatalogKind.Component, 'kubeflow-trainer');
    assert.ok(component, `${definition.name} offers no kubeflow-trainer`);
    const tile = await kaoto.camelComponentToTile(component);
    assert.equal(tile.title, 'Kubeflow Trainer');
    assert.deepEqual(tile.headerTags, ['Component', 'Preview']);
    assert.deepEqual(tile.tags, ['cloud', 'container', 'ai']);
    assert.match(tile.description, /Kubeflow Trainer v2 TrainJobs/);
    // Kaoto's own components are still there
    assert.ok(await registry.getEntity(kaoto.CatalogKind.Component, 'kubernetes-pods'));
    assert.ok(await registry.getEntity(kaoto.CatalogKind.Pattern, 'choice'));
  });

  test(`Kaoto ${KAOTO_VERSION} builds the form of a kubeflow-trainer step and reads its URI (Camel ${runtime})`, async () => {
    await select(runtime);
    const service = kaoto.CamelComponentSchemaService;
    const to = service.getSchema({ processorName: 'to', componentName: 'kubeflow-trainer' });
    const parameters = to.properties.parameters;
    assert.equal(parameters['x-component-name'], 'kubeflow-trainer');
    assert.deepEqual(parameters.required, ['operation']);
    assert.ok(parameters.properties.operation.enum.includes('train'));
    assert.equal(parameters.properties.runtime.title, 'Runtime');
    assert.equal(parameters.properties.oauthToken.format, 'password');
    // a to() form leaves out the consumer's options, a from() form the producer's
    assert.equal(parameters.properties.bridgeErrorHandler, undefined);
    const from = service.getSchema({ processorName: 'from', componentName: 'kubeflow-trainer' }).properties.parameters;
    assert.ok(from.properties.bridgeErrorHandler);
    assert.equal(from.properties.lazyStartProducer, undefined);

    assert.deepEqual(service.getComponentDefinitionFromUri('kubeflow-trainer:train?runtime=torch-distributed&numNodes=2'),
      { uri: 'kubeflow-trainer', parameters: { operation: 'train', runtime: 'torch-distributed', numNodes: 2 } });
  });

  test(`Kaoto ${KAOTO_VERSION} offers the two Kamelets with their forms (Camel ${runtime})`, async () => {
    await select(runtime);
    const cases = {
      'kubeflow-trainer-action': ['action', 'Kubeflow Trainer Action', ['runtime'], ['runtime', 'numNodes', 'wait']],
      'kubeflow-trainjob-source': ['source', 'Kubeflow TrainJob Source', undefined, ['namespace', 'labelSelector']],
    };
    for (const [name, [type, title, required, fields]] of Object.entries(cases)) {
      const lookup = await kaoto.CamelComponentSchemaService.resolveCatalogLookup(`kamelet:${name}`);
      assert.equal(lookup.catalogKind, kaoto.CatalogKind.Kamelet, name);
      const tile = await kaoto.kameletToTile(lookup.definition);
      assert.equal(tile.title, title);
      assert.deepEqual(tile.tags, [type]);
      assert.deepEqual(tile.headerTags, ['Kamelet', 'Preview']);
      const form = lookup.definition.propertiesSchema;
      assert.deepEqual(form.required, required, name);
      for (const field of fields) {
        assert.ok(form.properties[field]?.title, `${name}: ${field}`);
      }
    }
  });
}
