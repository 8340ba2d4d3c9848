// Placeholder entry for `npm run bench`; the engine issue replaces it.
console.error('bench: not built yet');
process.exit(1);
