// tests/e2e/speedscope_schema.mjs: checks a speedscope export against the
// file format's schema and the rules of speedscope's importer.
//
//   node speedscope_schema.mjs FILE [PUBLISHED_SCHEMA]
//
// The schema below is the part of https://www.speedscope.app/file-format-schema.json
// (speedscope 1.25) that a file of sampled profiles uses: the required
// fields and the type of every field, written from that specification.
// Given the published schema file too, the required lists and the units
// written here are first compared with it, so this copy cannot drift.
// Beyond the schema, the importer needs: as many weights as samples, frame
// indices that are integers naming a shared frame, endValue - startValue
// equal to the total weight, and an activeProfileIndex that names a
// profile. Prints "ok" or one line per problem, and exits 1 on any.
import fs from 'node:fs';

const units = ['bytes', 'microseconds', 'milliseconds', 'nanoseconds', 'none', 'seconds'];
const number = { type: 'number' };
const string = { type: 'string' };
const schema = {
	'FileFormat.File': {
		type: 'object', required: ['$schema', 'profiles', 'shared'],
		properties: {
			$schema: { const: 'https://www.speedscope.app/file-format-schema.json' },
			activeProfileIndex: number, exporter: string, name: string,
			profiles: { type: 'array', items: { ref: 'FileFormat.SampledProfile' } },
			shared: { type: 'object', required: ['frames'],
				  properties: { frames: { type: 'array', items: { ref: 'FileFormat.Frame' } } } },
		},
	},
	'FileFormat.Frame': {
		type: 'object', required: ['name'],
		properties: { col: number, file: string, line: number, name: string },
	},
	'FileFormat.SampledProfile': {
		type: 'object', required: ['endValue', 'name', 'samples', 'startValue', 'type', 'unit', 'weights'],
		properties: {
			endValue: number, name: string, startValue: number, type: { const: 'sampled' },
			unit: { enum: units },
			samples: { type: 'array', items: { type: 'array', items: number } },
			weights: { type: 'array', items: number },
		},
	},
};

const problems = [];
const typeOf = (v) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

function check(v, s, where) {
	if (s.ref)
		return check(v, schema[s.ref], where);
	if (s.const !== undefined && v !== s.const)
		return problems.push(`${where}: is ${JSON.stringify(v)}, not ${JSON.stringify(s.const)}`);
	if (s.enum && !s.enum.includes(v))
		return problems.push(`${where}: ${JSON.stringify(v)} is not one of ${s.enum.join(', ')}`);
	if (s.type && typeOf(v) !== s.type)
		return problems.push(`${where}: is a ${typeOf(v)}, not a ${s.type}`);
	for (const r of s.required || [])
		if (!(r in v))
			problems.push(`${where}: no required field '${r}'`);
	for (const [k, sub] of Object.entries(s.properties || {}))
		if (k in v)
			check(v[k], sub, `${where}.${k}`);
	if (s.items)
		v.forEach((x, i) => check(x, s.items, `${where}[${i}]`));
}

const [file, published] = process.argv.slice(2);
if (published) {
	const defs = JSON.parse(fs.readFileSync(published, 'utf8')).definitions;
	for (const name of Object.keys(schema)) {
		const want = JSON.stringify([...defs[name].required].sort());
		if (JSON.stringify([...schema[name].required].sort()) !== want)
			problems.push(`schema: ${name} requires ${want} in the published schema`);
	}
	if (JSON.stringify([...defs['FileFormat.ValueUnit'].enum].sort()) !== JSON.stringify(units))
		problems.push('schema: the published units differ');
}

let doc;
try {
	doc = JSON.parse(fs.readFileSync(file, 'utf8'));
} catch (e) {
	problems.push(`${file}: not JSON: ${e.message}`);
}
if (doc) {
	check(doc, schema['FileFormat.File'], '$');
	const nframes = doc.shared?.frames?.length ?? 0;
	(doc.profiles || []).forEach((p, i) => {
		const where = `$.profiles[${i}]`;
		if (!Array.isArray(p.samples) || !Array.isArray(p.weights))
			return;
		if (p.samples.length !== p.weights.length)
			problems.push(`${where}: ${p.samples.length} samples but ${p.weights.length} weights`);
		p.samples.forEach((st, j) => st.forEach((f) => {
			if (!Number.isInteger(f) || f < 0 || f >= nframes)
				problems.push(`${where}.samples[${j}]: ${f} names no shared frame`);
		}));
		const total = p.weights.reduce((a, b) => a + b, 0);
		if (p.endValue - p.startValue !== total)
			problems.push(`${where}: endValue - startValue is ${p.endValue - p.startValue}, the weights total ${total}`);
	});
	if ('activeProfileIndex' in doc && !(doc.activeProfileIndex >= 0 && doc.activeProfileIndex < (doc.profiles || []).length))
		problems.push(`$.activeProfileIndex: ${doc.activeProfileIndex} names no profile`);
}
if (problems.length) {
	console.log(problems.slice(0, 10).join('\n'));
	process.exit(1);
}
console.log('ok');
