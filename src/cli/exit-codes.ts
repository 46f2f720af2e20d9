/** Exit code after Ctrl-C, as shells report a process ended by SIGINT (128 + 2). */
export const EXIT_INTERRUPTED = 130;
