// fntrace SYMBOLS OUT PROGRAM [ARGS...]: runs PROGRAM under ptrace with a one-shot breakpoint on the
// first byte of every function in SYMBOLS ("hexaddress name" lines, addresses as in the ELF file,
// PIE), and writes the names of the functions that ran to OUT, in the order they first ran.
//
// scripts/order-functions uses it to list the code the sentinel runs, so that the linker can put
// that code together (deploy/bikebeacon.order). Each breakpoint fires once and is then removed, so
// the program runs at nearly full speed after its first call of each function. x86-64 Linux only
// (int3, rip); the list it makes is by symbol name and serves every architecture.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct { uint64_t address; char *name; unsigned char original; int hit; } Site;
static Site *sites; static size_t count;

static int by_address(const void *a, const void *b) {
    uint64_t x = ((const Site *)a)->address, y = ((const Site *)b)->address;
    return x < y ? -1 : x > y;
}
static Site *find(uint64_t address) {
    size_t lo = 0, hi = count;
    while (lo < hi) { size_t mid = (lo + hi) / 2; if (sites[mid].address < address) lo = mid + 1; else hi = mid; }
    return lo < count && sites[lo].address == address ? &sites[lo] : NULL;
}
static uint64_t load_base(pid_t pid, const char *program) {
    char path[64], line[4096], real[4096];
    if (!realpath(program, real)) return 0;
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    FILE *maps = fopen(path, "r"); uint64_t base = 0;
    while (maps && fgets(line, sizeof line, maps)) {
        unsigned long start, offset; char *file = strchr(line, '/');
        if (!file) continue;
        file[strcspn(file, "\n")] = 0;
        if (sscanf(line, "%lx-%*x %*s %lx", &start, &offset) == 2 && offset == 0 && !strcmp(file, real)) { base = start; break; }
    }
    if (maps) fclose(maps);
    return base;
}
static void poke_byte(pid_t pid, uint64_t address, unsigned char byte, unsigned char *old) {
    errno = 0;
    long word = ptrace(PTRACE_PEEKTEXT, pid, (void *)address, 0);
    if (errno) { perror("peek"); return; }
    if (old) *old = (unsigned char)(word & 0xff);
    word = (word & ~0xffL) | byte;
    if (ptrace(PTRACE_POKETEXT, pid, (void *)address, (void *)word) < 0) perror("poke");
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: fntrace SYMBOLS OUT PROGRAM [ARGS...]\n"); return 2; }
    FILE *list = fopen(argv[1], "r"); char line[8192];
    if (!list) { perror(argv[1]); return 2; }
    size_t capacity = 1 << 16; sites = malloc(capacity * sizeof *sites);
    while (fgets(line, sizeof line, list)) {
        char *space = strchr(line, ' '); if (!space) continue;
        line[strcspn(line, "\n")] = 0;
        if (count == capacity) sites = realloc(sites, (capacity *= 2) * sizeof *sites);
        sites[count++] = (Site){ strtoull(line, NULL, 16), strdup(space + 1), 0, 0 };
    }
    fclose(list);
    qsort(sites, count, sizeof *sites, by_address);
    pid_t child = fork();
    if (child == 0) { ptrace(PTRACE_TRACEME, 0, 0, 0); execv(argv[3], argv + 3); perror("exec"); _exit(127); }
    int status; waitpid(child, &status, 0);   // stopped at exec
    uint64_t base = load_base(child, argv[3]);
    if (!base) { fprintf(stderr, "fntrace: no mapping of %s\n", argv[3]); kill(child, SIGKILL); return 1; }
    size_t unique = 0;
    for (size_t i = 0; i < count; i++) if (!unique || sites[i].address != sites[unique - 1].address) sites[unique++] = sites[i];
    count = unique;
    for (size_t i = 0; i < count; i++) { sites[i].address += base; poke_byte(child, sites[i].address, 0xcc, &sites[i].original); }
    size_t armed = count;
    ptrace(PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL);
    ptrace(PTRACE_CONT, child, 0, 0);
    FILE *out = fopen(argv[2], "w"); size_t hits = 0; int code = 0;
    for (;;) {
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0) break;
        if (WIFEXITED(status) || WIFSIGNALED(status)) { if (pid == child) code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); continue; }
        int signal = WSTOPSIG(status);
        if (signal == SIGTRAP && (status >> 16) == 0) {
            struct user_regs_struct regs; ptrace(PTRACE_GETREGS, pid, 0, &regs);
            Site *site = find(regs.rip - 1);
            if (site) {
                if (!site->hit) { site->hit = 1; hits++; poke_byte(pid, site->address, site->original, NULL); fprintf(out, "%s\n", site->name); }
                regs.rip -= 1; ptrace(PTRACE_SETREGS, pid, 0, &regs);
                signal = 0;
            }
        } else if (signal == SIGTRAP || signal == SIGSTOP) signal = 0;   // clone events, new threads' first stop
        ptrace(PTRACE_CONT, pid, 0, (void *)(long)signal);
    }
    fclose(out);
    fprintf(stderr, "fntrace: %zu of %zu functions ran; %s exited %d\n", hits, armed, argv[3], code);
    return code;
}
