// Preloaded (`node --require`) into a `ddsctl migrate` that a test kills: once the process
// has written the progress line of the step named by UPGRADE_TEST_HOLD_AT to stderr, it
// stops right there, inside the migration's transaction, until the test kills it. So the
// kill lands mid-copy every time, however fast the machine (no race with the commit).
const step = process.env.UPGRADE_TEST_HOLD_AT;
const write = process.stderr.write.bind(process.stderr);
process.stderr.write = (chunk, ...rest) => {
  const written = write(chunk, ...rest);
  // stderr to a pipe is written synchronously on Linux: the line is out before the wait.
  if (step && String(chunk).includes(`: ${step}\n`)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  return written;
};
