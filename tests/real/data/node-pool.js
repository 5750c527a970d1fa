// SPDX-License-Identifier: MIT
// node-pool.js - work for libuv's thread pool (crypto.pbkdf2, zlib.deflate,
// fs.readFile), its results printed in a fixed order: the same output every
// run, however the pool's threads interleave (tests/real/114-116).
const crypto = require('crypto');
const zlib = require('zlib');
const fs = require('fs');
let pending = 0;
const results = [];
function done() { if (--pending === 0) { results.sort(); console.log(results.join('\n')); } }
for (let i = 0; i < 6; i++) {
  pending++;
  crypto.pbkdf2('secret' + i, 'salt', 2000, 16, 'sha256', (err, key) => { results.push('pbkdf2 ' + i + ' ' + key.toString('hex')); done(); });
}
for (let i = 0; i < 3; i++) {
  pending++;
  zlib.deflate(Buffer.alloc(100000 * (i + 1), 'ab' + i), (err, buf) => { results.push('deflate ' + i + ' ' + buf.length); done(); });
}
pending++;
fs.readFile('/etc/os-release', (err, data) => { results.push('read ' + data.length); done(); });
