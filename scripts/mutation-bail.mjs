// A node:test reporter for the mutation runs (scripts/mutation.mjs): it ends the process with exit
// code 1 at the first failing test. A mutant is killed by any one failure, so the rest of the run
// adds nothing but time; and a mutant that makes every test wait out its own deadline (a watch that
// never delivers, each read failing after two seconds) is then a kill at the first deadline instead
// of a timeout once the deadlines add up past Stryker's. A mutant that hangs synchronously still
// times out: no reporter runs while the event loop is blocked. It prints the failing test's name
// and error, and nothing else.
export default async function* bail(source) {
  for await (const event of source) {
    if (event.type !== 'test:fail' || event.data.todo || event.data.skip) continue;
    const error = event.data.details?.error;
    process.stderr.write(`not ok ${event.data.name} (${event.data.file ?? '?'})\n  ${String(error?.cause?.message ?? error?.message ?? error).split('\n')[0]}\n`);
    process.exit(1);
  }
  yield '';
}
