#!/usr/bin/env node
// rt-inventory.js: the assertion inventory of JavaScript/TypeScript test
// files (jest, vitest, mocha, node:assert), read with a parser the PROJECT
// has installed (issue 19; share/retrial's inventory schema, version 1).
//
//   node rt-inventory.js [--root DIR] [--parser-root DIR] FILE...
//   (--parser-root: where the parser is looked for, default --root; retrial
//   passes the original project there, never a patched copy, so a patch
//   cannot bring its own "parser")
//
// The parser is resolved from DIR (default: the current directory), in this
// order: acorn, @babel/parser, typescript. TypeScript files (.ts .tsx .mts
// .cts) need @babel/parser or typescript. None usable: the message
// "rt-inventory.js: no parser for javascript (acorn, @babel/parser or
// typescript)" on stderr and exit 3, and lib/rt_src falls back to its text
// rules. Otherwise one JSON object on stdout and exit 0, a file that does
// not parse having its "error" (line:col from the parser); exit 2 on a
// usage error. Nothing of the project is run: the parser only reads text.
//
// Functions: each test()/it() (also .only/.concurrent/.each, xit, fit,
// test.skip, test.todo), named by its describe path joined with " > "
// ("cart > adds"); a .each title as written ("adds %s"); a title that is
// not a literal is "*". Named functions outside tests are functions with
// "test": false, for one-level helper following. Checks:
//   expect(X).[not.|resolves.|rejects.]m(Y...)  expect, callee "not.m",
//                                  operands [X, Y...]; toThrow* and
//                                  rejects.* (not negated): raises
//   assert(X), assert.m(...)       call (assert.throws/rejects: raises)
//   expect.assertions(n)           call
//   fail(...), throw               fail
//   test.skip, xit, test.todo, describe.skip/xdescribe around it: skip
//   return (not inside callbacks) return; `return expect(..)...` is the
//                                  check, not an early return
//   a check in a try whose catch does not rethrow: guarded "try"
//   a check under `if (false)`, `if (0)`, `while (false)`, the else of
//                                  `if (true)` ...: "dead", the branch's
//                                  line and text
// Each check's "uses": the calls (not expect, assert, the framework or a
// JavaScript global) whose values it compares, directly or through a name
// assigned in the function, as rt-inventory.py has them.
// Optional fields beyond the schema: a file's "parser".
'use strict';
const fs = require('fs');
const path = require('path');

const MAX_SIZE = 2 << 20;
const NO_PARSER = 3;

function usage() {
	process.stderr.write('usage: rt-inventory.js [--root DIR] [--parser-root DIR] FILE...\n');
	process.exit(2);
}

function parseArgs(argv) {
	let root = process.cwd();
	let parserRoot = null;
	const files = [];
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === '--') {
			files.push(...argv.slice(i + 1));
			break;
		} else if (a === '--root') {
			if (i + 1 >= argv.length) usage();
			root = argv[++i];
		} else if (a.startsWith('--root=')) {
			root = a.slice(7);
		} else if (a === '--parser-root') {
			if (i + 1 >= argv.length) usage();
			parserRoot = argv[++i];
		} else if (a.startsWith('-') && a !== '-') {
			usage();
		} else {
			files.push(a);
		}
	}
	if (files.length === 0) usage();
	return { root: path.resolve(root), parserRoot: path.resolve(parserRoot || root), files };
}

// the package.json of a resolved module: walk up from its main file
function pkgVersion(main, name) {
	let d = path.dirname(main);
	for (;;) {
		const p = path.join(d, 'package.json');
		try {
			const j = JSON.parse(fs.readFileSync(p, 'utf8'));
			if (j.name === name) return j.version || '?';
		} catch (e) { /* not here */ }
		const up = path.dirname(d);
		if (up === d) return '?';
		d = up;
	}
}

function findParsers(root) {
	const found = {};
	for (const name of ['acorn', '@babel/parser', 'typescript']) {
		let p;
		try {
			p = require.resolve(name, { paths: [root] });
		} catch (e) {
			continue;
		}
		found[name] = { path: p, version: pkgVersion(p, name), mod: null };
	}
	return found;
}

function load(found, name) {
	const p = found[name];
	if (!p.mod) p.mod = require(p.path);
	return p.mod;
}

const isTS = (f) => /\.(ts|tsx|mts|cts)$/.test(f);

function syntaxError(e, lines) {
	const msg = String(e.message || e).replace(/ \(\d+:\d+\)$/, '');
	if (e.loc && e.loc.line) return { line: e.loc.line, col: e.loc.column + 1, message: msg };
	if (typeof e.pos === 'number') {
		const lc = lines.at(e.pos);
		return { line: lc.line, col: lc.col, message: msg };
	}
	return null;
}

// Each parse function returns an ESTree-shaped tree (typescript's is
// converted) or throws a SyntaxError-like object.
function parseAcorn(acorn, src) {
	const opts = {
		ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true,
		allowAwaitOutsideFunction: true, allowReturnOutsideFunction: true,
		allowImportExportEverywhere: true,
	};
	try {
		return acorn.parse(src, opts);
	} catch (e) {
		if (!(e instanceof SyntaxError)) throw e;
		return acorn.parse(src, Object.assign(opts, { sourceType: 'script' }));
	}
}

function parseBabel(babel, src, file) {
	const plugins = ['estree'];
	if (/\.(ts|mts|cts)$/.test(file)) plugins.push('typescript');
	else if (/\.tsx$/.test(file)) plugins.push('typescript', 'jsx');
	else plugins.push('jsx');
	return babel.parse(src, {
		sourceType: 'unambiguous', plugins, errorRecovery: false,
		allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true,
		allowImportExportEverywhere: true,
	}).program;
}

function parseTS(ts, src, file, lines) {
	const kind = /\.tsx$/.test(file) ? ts.ScriptKind.TSX : /\.(ts|mts|cts)$/.test(file) ? ts.ScriptKind.TS
		: /\.jsx$/.test(file) ? ts.ScriptKind.JSX : ts.ScriptKind.JS;
	const sf = ts.createSourceFile(file, src, ts.ScriptTarget.Latest, true, kind);
	const d = sf.parseDiagnostics && sf.parseDiagnostics[0];
	if (d) {
		const lc = lines.at(d.start || 0);
		const m = typeof d.messageText === 'string' ? d.messageText : d.messageText.messageText;
		throw { loc: { line: lc.line, column: lc.col - 1 }, message: m };
	}
	return tsConvert(ts, sf, sf);
}

// typescript's tree as the few ESTree shapes the reader looks at; every
// other node is {type: "Other", body: [children]}
function tsConvert(ts, n, sf) {
	const K = ts.SyntaxKind;
	const c = (x) => (x ? tsConvert(ts, x, sf) : null);
	const base = { start: n.kind === K.SourceFile ? 0 : n.getStart(sf), end: n.end };
	const kids = () => {
		const out = [];
		ts.forEachChild(n, (k) => { out.push(tsConvert(ts, k, sf)); });
		return out;
	};
	switch (n.kind) {
	case K.CallExpression:
		return Object.assign(base, { type: 'CallExpression', callee: c(n.expression), arguments: n.arguments.map(c) });
	case K.PropertyAccessExpression:
		return Object.assign(base, {
			type: 'MemberExpression', object: c(n.expression), computed: false,
			property: { type: 'Identifier', name: n.name.text, start: n.name.getStart(sf), end: n.name.end },
		});
	case K.ElementAccessExpression:
		return Object.assign(base, { type: 'MemberExpression', object: c(n.expression), computed: true, property: c(n.argumentExpression) });
	case K.Identifier:
		return Object.assign(base, { type: 'Identifier', name: n.text });
	case K.StringLiteral:
		return Object.assign(base, { type: 'Literal', value: n.text });
	case K.NoSubstitutionTemplateLiteral:
		return Object.assign(base, { type: 'TemplateLiteral', expressions: [], quasis: [{ value: { cooked: n.text } }] });
	case K.TemplateExpression:
		return Object.assign(base, { type: 'TemplateLiteral', expressions: kids(), quasis: [] });
	case K.TaggedTemplateExpression:
		return Object.assign(base, { type: 'TaggedTemplateExpression', tag: c(n.tag), quasi: c(n.template) });
	case K.FunctionDeclaration:
	case K.FunctionExpression:
	case K.ArrowFunction:
	case K.MethodDeclaration:
		return Object.assign(base, {
			type: n.kind === K.ArrowFunction ? 'ArrowFunctionExpression' : n.kind === K.FunctionDeclaration ? 'FunctionDeclaration' : 'FunctionExpression',
			id: n.name && n.name.kind === K.Identifier ? c(n.name) : null, params: [], body: c(n.body),
		});
	case K.Block:
		return Object.assign(base, { type: 'BlockStatement', body: n.statements.map(c) });
	case K.TryStatement:
		return Object.assign(base, {
			type: 'TryStatement', block: c(n.tryBlock), finalizer: c(n.finallyBlock),
			handler: n.catchClause ? { type: 'CatchClause', start: n.catchClause.getStart(sf), end: n.catchClause.end, body: c(n.catchClause.block) } : null,
		});
	case K.ReturnStatement:
		return Object.assign(base, { type: 'ReturnStatement', argument: c(n.expression) });
	case K.ThrowStatement:
		return Object.assign(base, { type: 'ThrowStatement', argument: c(n.expression) });
	case K.ExpressionStatement:
		return Object.assign(base, { type: 'ExpressionStatement', expression: c(n.expression) });
	case K.VariableDeclaration:
		return Object.assign(base, {
			type: 'VariableDeclarator', id: n.name.kind === K.Identifier ? c(n.name) : { type: 'Other', body: [] },
			init: c(n.initializer),
		});
	case K.ParenthesizedExpression:
		return c(n.expression);
	case K.AsExpression:
	case K.NonNullExpression:
	case K.TypeAssertionExpression:
	case K.SatisfiesExpression:
		return Object.assign(c(n.expression), { start: base.start, end: base.end });
	}
	return Object.assign(base, { type: 'Other', body: kids() });
}

class Lines {
	constructor(src) {
		this.starts = [0];
		for (let i = 0; i < src.length; i++) if (src.charCodeAt(i) === 10) this.starts.push(i + 1);
	}
	at(off) {
		let lo = 0;
		let hi = this.starts.length - 1;
		while (lo < hi) {
			const mid = (lo + hi + 1) >> 1;
			if (this.starts[mid] <= off) lo = mid; else hi = mid - 1;
		}
		return { line: lo + 1, col: off - this.starts[lo] + 1 };
	}
	line(off) { return this.at(off).line; }
}

const SKIP_KEYS = new Set(['loc', 'range', 'start', 'end', 'type', 'extra', 'leadingComments', 'trailingComments',
	'innerComments', 'comments', 'tokens', 'typeAnnotation', 'returnType', 'typeParameters']);

function children(n) {
	const out = [];
	for (const k of Object.keys(n)) {
		if (SKIP_KEYS.has(k)) continue;
		const v = n[k];
		if (Array.isArray(v)) {
			for (const x of v) if (x && typeof x.type === 'string') out.push(x);
		} else if (v && typeof v.type === 'string') {
			out.push(v);
		}
	}
	return out;
}

const isFunc = (n) => n && /^(FunctionExpression|ArrowFunctionExpression|FunctionDeclaration)$/.test(n.type);
const TEST_BASES = new Set(['test', 'it', 'xit', 'xtest', 'fit', 'describe', 'xdescribe', 'fdescribe', 'suite', 'context']);
const DESCRIBES = new Set(['describe', 'xdescribe', 'fdescribe', 'suite', 'context']);

function propName(m) {
	if (!m.computed && m.property.type === 'Identifier') return m.property.name;
	if (m.computed && m.property.type === 'Literal' && typeof m.property.value === 'string') return m.property.value;
	return null;
}

// A member chain a.b.c as ["a", "b", "c"], or null.
function chain(n) {
	const out = [];
	while (n.type === 'MemberExpression') {
		const p = propName(n);
		if (p === null) return null;
		out.unshift(p);
		n = n.object;
	}
	if (n.type !== 'Identifier') return null;
	out.unshift(n.name);
	return out;
}

// A condition that is always false or always true, as written.
function constValue(n) {
	if (!n) return undefined;
	if (n.type === 'Literal' || n.type === 'BooleanLiteral' || n.type === 'NumericLiteral' ||
	    n.type === 'StringLiteral' || n.type === 'NullLiteral') {
		return n.type === 'NullLiteral' ? null : n.value;
	}
	if (n.type === 'Identifier' && n.name === 'undefined') return undefined;
	if (n.type === 'UnaryExpression' && n.operator === '!') {
		const v = constValue(n.argument);
		return isConst(n.argument) ? !v : undefined;
	}
	if (n.type === 'UnaryExpression' && n.operator === 'void') return undefined;
	return undefined;
}
function isConst(n) {
	if (!n) return false;
	if (/^(Literal|BooleanLiteral|NumericLiteral|StringLiteral|NullLiteral)$/.test(n.type)) return !n.regex;
	if (n.type === 'Identifier') return n.name === 'undefined';
	if (n.type === 'UnaryExpression') return n.operator === 'void' || (n.operator === '!' && isConst(n.argument));
	return false;
}
const falsy = (n) => (isConst(n) && !constValue(n)) ||
	(n && n.type === 'LogicalExpression' && n.operator === '&&' && (falsy(n.left) || falsy(n.right)));
const truthy = (n) => isConst(n) && !!constValue(n);

// Calls that are not the code under test: the framework, assertions and
// JavaScript's globals ("uses" leaves them out).
const NOT_UNDER_TEST = new Set(['expect', 'assert', 'fail', 'require', 'parseInt', 'parseFloat',
	'String', 'Number', 'Boolean', 'Array', 'Object', 'JSON', 'Math', 'Date', 'Promise', 'Symbol',
	'BigInt', 'Map', 'Set', 'isNaN', 'isFinite', 'setTimeout', 'clearTimeout', 'console', 'jest',
	'vi', 'sinon', 'structuredClone']);
function underTest(name) {
	if (!name) return false;
	const base = name.split('.')[0];
	const lastPart = name.split('.').pop();
	// a clock read stays: the guard knows a value a clock measures
	if (name === 'Date.now') return true;
	return !NOT_UNDER_TEST.has(base) && !/^(assert|fail|to[A-Z])/.test(lastPart);
}
function callName(n) {
	let c = n.callee;
	while (c && c.type === 'CallExpression') c = c.callee;
	const ch = c && (c.type === 'Identifier' || c.type === 'MemberExpression') ? chain(c) : null;
	return ch ? ch.join('.') : null;
}
// The under-test calls in an expression, in order, once each.
function callsIn(node, out = []) {
	const go = (n) => {
		if (!n) return;
		if (n.type === 'CallExpression' || n.type === 'NewExpression') {
			const name = callName(n);
			if (underTest(name) && !out.includes(name)) out.push(name);
		}
		for (const k of children(n)) go(k);
	};
	go(node);
	return out;
}
function namesIn(node) {
	const out = new Set();
	const go = (n) => {
		if (!n) return;
		if (n.type === 'Identifier') out.add(n.name);
		if (n.type === 'MemberExpression' && !n.computed) { go(n.object); return; }
		if (n.type === 'Property' && !n.computed) { go(n.value); return; }
		for (const k of children(n)) go(k);
	};
	go(node);
	return out;
}
// name -> the calls of the values assigned to it in a function body.
function assigned(body) {
	const out = new Map();
	const bind = (target, value) => {
		for (const name of namesIn(target)) {
			if (!out.has(name)) out.set(name, []);
			for (const c of callsIn(value)) if (!out.get(name).includes(c)) out.get(name).push(c);
		}
	};
	const go = (n) => {
		if (!n) return;
		if (n.type === 'VariableDeclarator' && n.init) bind(n.id, n.init);
		else if (n.type === 'AssignmentExpression') bind(n.left, n.right);
		else if ((n.type === 'ForOfStatement' || n.type === 'ForInStatement') && n.left) {
			bind(n.left.type === 'VariableDeclaration' ? n.left.declarations[0].id : n.left, n.right);
		}
		for (const k of children(n)) go(k);
	};
	go(body);
	return out;
}

class Reader {
	constructor(src, lines) {
		this.src = src;
		this.lines = lines;
		this.funcs = [];
		this.bodies = new Map();   // function record -> its body node
	}

	text(n) { return this.src.slice(n.start, n.end).replace(/\s+/g, ' ').trim(); }

	// the title of a test or describe
	title(n) {
		if (!n) return '*';
		if (n.type === 'Literal' && typeof n.value === 'string') return n.value;
		if (n.type === 'TemplateLiteral') {
			if (n.expressions.length === 0 && n.quasis.length === 1) return n.quasis[0].value.cooked;
			return this.src.slice(n.start + 1, n.end - 1);
		}
		return '*';
	}

	// test/it/describe calls: {describe, callee, skip, title, fn}
	testCall(n) {
		let callee = n.callee;
		let each = false;
		if (callee.type === 'CallExpression' || callee.type === 'TaggedTemplateExpression') {
			const inner = callee.type === 'CallExpression' ? callee.callee : callee.tag;
			const ch = inner.type === 'MemberExpression' ? chain(inner) : null;
			if (!ch || ch[ch.length - 1] !== 'each') return null;
			callee = inner;
			each = true;
		}
		const ch = chain(callee);
		if (!ch || !TEST_BASES.has(ch[0])) return null;
		const mods = ch.slice(1);
		if (mods.some((m) => !/^(only|skip|todo|concurrent|each|failing|sequential|serial)$/.test(m))) return null;
		if (mods.includes('each') && !each) return null;
		const args = n.arguments;
		const fn = args.slice(1).find(isFunc) || null;
		const todo = mods.includes('todo');
		if (!todo && args.length < 2) return null;
		return {
			describe: DESCRIBES.has(ch[0]), callee: ch.join('.'), title: this.title(args[0]), fn,
			skip: ch[0].startsWith('x') || mods.includes('skip') || todo, args,
		};
	}

	newFunc(name, node, test) {
		const f = {
			name, line: this.lines.line(node.start), end: this.lines.line(Math.max(node.start, node.end - 1)),
			test, calls: [], checks: [], seen: new Set(),
		};
		this.funcs.push(f);
		return f;
	}

	add(ctx, node, c) {
		const ck = Object.assign({
			kind: c.kind, line: this.lines.line(node.start), end: this.lines.line(Math.max(node.start, node.end - 1)),
			callee: '', op: '', operands: [], expected: null, options: {},
			guarded: ctx.guard ? 'try' : null, text: this.text(node),
		}, c);
		if (ctx.dead) ck.dead = ctx.dead;
		Object.defineProperty(ck, 'pos', { value: node.start, enumerable: false });
		const useNodes = c.useNodes || [];
		delete ck.useNodes;
		Object.defineProperty(ck, 'useNodes', { value: useNodes, enumerable: false });
		ctx.fn.checks.push(ck);
	}

	// expect(X)...matcher(Y) or a chai-style property chain
	expectCheck(n, ctx, call) {
		let m = call ? n.callee : n;
		if (m.type !== 'MemberExpression') return false;
		const mods = [];
		let o = m;
		while (o.type === 'MemberExpression') {
			const p = propName(o);
			if (p === null) return false;
			mods.unshift(p);
			o = o.object;
		}
		if (o.type !== 'CallExpression') return false;
		const ec = o.callee.type === 'MemberExpression' ? chain(o.callee) : o.callee.type === 'Identifier' ? [o.callee.name] : null;
		if (!ec || ec[0] !== 'expect' || ec.length > 2) return false;
		const matcher = mods.pop();
		const args = call ? n.arguments : [];
		const negated = mods.includes('not');
		const raises = !negated && (/^toThrow/.test(matcher) || mods.includes('rejects'));
		const operands = [o.arguments[0], ...args].filter(Boolean).map((a) => this.text(a));
		const c = {
			kind: raises ? 'raises' : 'expect', callee: [...mods, matcher].join('.'), operands,
			expected: operands.length > 1 ? 1 : null, useNodes: [o.arguments[0], ...args].filter(Boolean),
		};
		if (matcher === 'toBeCloseTo' && args.length > 1) {
			c.options = { places: this.text(args[1]) };
			c.operands = operands.slice(0, 2);
		}
		this.add(ctx, n, c);
		return true;
	}

	otherCheck(n, ctx) {
		const ch = chain(n.callee);
		if (!ch) return;
		const name = ch.join('.');
		if (ch[0] === 'expect' && ch.length === 2 && /^(assertions|hasAssertions)$/.test(ch[1])) {
			this.add(ctx, n, { kind: 'call', callee: name, operands: n.arguments.map((a) => this.text(a)) });
		} else if ((ch[0] === 'assert' && ch.length <= 2) || (ch.length === 3 && ch[1] === 'assert')) {
			const m = ch[ch.length - 1];
			const kind = /^(throws|rejects)$/.test(m) ? 'raises' : m === 'fail' ? 'fail' : 'call';
			const operands = n.arguments.map((a) => this.text(a));
			const eq = /equal|Equal|match|Match/.test(m) && operands.length > 1;
			this.add(ctx, n, { kind, callee: name, operands, expected: eq ? 1 : null, useNodes: n.arguments });
		} else if (name === 'fail') {
			this.add(ctx, n, { kind: 'fail', callee: 'fail', operands: n.arguments.map((a) => this.text(a)) });
		}
	}

	recordCall(n, ctx) {
		let c = n.callee;
		while (c.type === 'CallExpression') c = c.callee;
		const ch = c.type === 'Identifier' || c.type === 'MemberExpression' ? chain(c) : null;
		if (!ch) return;
		const name = ch.join('.');
		if (!ctx.fn.seen.has(name)) {
			ctx.fn.seen.add(name);
			ctx.fn.calls.push(name);
		}
	}

	rethrows(body) {
		let found = false;
		const go = (n) => {
			if (found || !n) return;
			if (n.type === 'ThrowStatement') { found = true; return; }
			if (isFunc(n)) return;
			for (const k of children(n)) go(k);
		};
		go(body);
		return found;
	}

	startTest(t, n, ctx) {
		const names = ctx.path.concat([t.title]);
		const rec = this.newFunc(names.join(' > '), n, true);
		const skipBy = t.skip ? t.callee : ctx.skip;
		if (skipBy) {
			const tn = t.args[0] ? this.text(t.args[0]) : '';
			this.add({ fn: rec }, n, { kind: 'skip', callee: skipBy, operands: tn ? [tn] : [], text: `${t.callee}(${tn})` });
			rec.checks[rec.checks.length - 1].line = this.lines.line(n.start);
			rec.checks[rec.checks.length - 1].end = this.lines.line(n.start);
		}
		for (const a of t.args) if (a !== t.fn) this.walk(a, ctx);
		if (t.fn) {
			this.bodies.set(rec, t.fn.body);
			const fctx = { path: names, skip: null, fn: rec, nested: false, guard: false };
			this.walk(t.fn.body, fctx);
		}
	}

	walk(n, ctx) {
		if (!n) return;
		const inTest = ctx.fn && ctx.fn.test;
		switch (n.type) {
		case 'CallExpression': {
			if (!inTest) {
				const t = this.testCall(n);
				if (t && t.describe) {
					for (const a of t.args) if (a !== t.fn) this.walk(a, ctx);
					if (t.fn) {
						this.walk(t.fn.body, {
							path: ctx.path.concat([t.title]), skip: ctx.skip || (t.skip ? t.callee : null),
							fn: null, nested: false, guard: false,
						});
					}
					return;
				}
				if (t) {
					this.startTest(t, n, ctx);
					return;
				}
			}
			if (ctx.fn) {
				this.recordCall(n, ctx);
				if (!this.expectCheck(n, ctx, true)) this.otherCheck(n, ctx);
			}
			break;
		}
		case 'ExpressionStatement':
			if (ctx.fn && n.expression.type === 'MemberExpression') this.expectCheck(n.expression, ctx, false);
			break;
		case 'FunctionDeclaration':
		case 'FunctionExpression':
		case 'ArrowFunctionExpression':
			if (!ctx.fn && n.type === 'FunctionDeclaration' && n.id) {
				this.helper(n.id.name, n, n, ctx);
				return;
			}
			if (ctx.fn) {
				this.walk(n.body, Object.assign({}, ctx, { nested: true }));
				return;
			}
			break;
		case 'VariableDeclarator':
			if (!ctx.fn && n.id && n.id.type === 'Identifier' && isFunc(n.init)) {
				this.helper(n.id.name, n, n.init, ctx);
				return;
			}
			break;
		case 'IfStatement':
		case 'WhileStatement':
			if (ctx.fn && !ctx.dead && (falsy(n.test) || (n.type === 'IfStatement' && truthy(n.test)))) {
				const head = this.src.slice(n.start, n.test.end + 1).replace(/\s+/g, ' ').trim();
				const dead = { line: this.lines.line(n.start), text: head };
				const never = falsy(n.test) ? (n.consequent || n.body) : n.alternate;
				const live = falsy(n.test) ? n.alternate : n.consequent;
				this.walk(live, ctx);
				this.walk(never, Object.assign({}, ctx, { dead }));
				return;
			}
			break;
		case 'TryStatement':
			if (ctx.fn) {
				const swallows = n.handler && !this.rethrows(n.handler.body);
				this.walk(n.block, Object.assign({}, ctx, { guard: ctx.guard || !!swallows }));
				if (n.handler) this.walk(n.handler, Object.assign({}, ctx, { inCatch: true }));
				this.walk(n.finalizer, ctx);
				return;
			}
			break;
		case 'ReturnStatement':
			if (ctx.fn && !ctx.nested) {
				const before = ctx.fn.checks.length;
				this.walk(n.argument, ctx);
				if (ctx.fn.checks.length === before) {
					this.add(ctx, n, { kind: 'return', callee: 'return', operands: n.argument ? [this.text(n.argument)] : [] });
				}
				return;
			}
			break;
		case 'ThrowStatement':
			if (ctx.fn && !ctx.nested && !ctx.inCatch) this.add(ctx, n, { kind: 'fail', callee: 'throw', operands: n.argument ? [this.text(n.argument)] : [] });
			break;
		}
		for (const k of children(n)) this.walk(k, ctx);
	}

	helper(name, node, fn, ctx) {
		const rec = this.newFunc(name, node, false);
		this.bodies.set(rec, fn.body);
		this.walk(fn.body, { path: ctx.path, skip: ctx.skip, fn: rec, nested: false, guard: false });
	}
}

function readFile(root, file, found) {
	const out = { path: file, error: null, functions: [], parser: null };
	let src;
	try {
		const p = path.resolve(root, file);
		const st = fs.statSync(p);
		if (st.size > MAX_SIZE) {
			out.error = { line: 0, col: 0, message: `file over ${MAX_SIZE} bytes (2 MiB): not read` };
			return out;
		}
		src = fs.readFileSync(p, 'utf8');
	} catch (e) {
		out.error = { line: 0, col: 0, message: e.message };
		return out;
	}
	const lines = new Lines(src);
	const order = isTS(file) ? ['@babel/parser', 'typescript'] : ['acorn', '@babel/parser', 'typescript'];
	let ast = null;
	let firstErr = null;
	for (const name of order) {
		if (!found[name]) continue;
		out.parser = `${name} ${found[name].version}`;
		try {
			const mod = load(found, name);
			ast = name === 'acorn' ? parseAcorn(mod, src)
				: name === '@babel/parser' ? parseBabel(mod, src, file) : parseTS(mod, src, file, lines);
			break;
		} catch (e) {
			if (e instanceof RangeError) {
				firstErr = firstErr || { line: 0, col: 0, message: `nesting too deep for ${name} (${e.message})` };
				break;
			}
			const se = syntaxError(e, lines);
			if (!se) throw e;
			firstErr = firstErr || se;
		}
	}
	if (!ast) {
		out.error = firstErr;
		return out;
	}
	const r = new Reader(src, lines);
	try {
		r.walk(ast, { path: [], skip: null, fn: null, nested: false, guard: false });
	} catch (e) {
		if (!(e instanceof RangeError)) throw e;
		out.error = { line: 0, col: 0, message: `nesting too deep to read (${e.message})` };
		return out;
	}
	for (const f of r.funcs) {
		f.checks.sort((a, b) => a.pos - b.pos);
		const binds = assigned(r.bodies.get(f));
		for (const c of f.checks) {
			const u = [];
			for (const o of c.useNodes) {
				const names = [...namesIn(o)].sort();
				for (const name of callsIn(o).concat(...names.map((x) => binds.get(x) || []))) {
					if (!u.includes(name)) u.push(name);
				}
			}
			c.uses = u;
		}
	}
	out.functions = r.funcs.map(({ seen, ...f }) => f);
	return out;
}

function main() {
	const { root, parserRoot, files } = parseArgs(process.argv.slice(2));
	const found = findParsers(parserRoot);
	const names = Object.keys(found);
	if (names.length === 0) {
		process.stderr.write('rt-inventory.js: no parser for javascript (acorn, @babel/parser or typescript)\n');
		process.exit(NO_PARSER);
	}
	if (files.some(isTS) && !found['@babel/parser'] && !found.typescript) {
		process.stderr.write('rt-inventory.js: no parser for typescript (@babel/parser or typescript)\n');
		process.exit(NO_PARSER);
	}
	const out = { version: 1, lang: 'javascript', parser: `${names[0]} ${found[names[0]].version}`, files: [] };
	for (const f of files) out.files.push(readFile(root, f, found));
	if (out.files.length && out.files[0].parser) out.parser = out.files[0].parser;
	const s = JSON.stringify(out) + '\n';
	process.stdout.on('error', (e) => {
		process.stderr.write(`rt-inventory.js: stdout: ${e.message}\n`);
		process.exit(2);
	});
	process.stdout.write(s);
}

main();
