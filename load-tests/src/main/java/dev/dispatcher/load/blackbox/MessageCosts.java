package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.result.MessageCost;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Reads what the processes of a drain have used so far, on this machine: the PostgreSQL cluster's CPU (its
 * postmaster and every child, from {@code /proc/<pid>/stat}: utime, stime and the reaped children's cutime and
 * cstime), the service JVM's and the Kafka broker's CPU, the WAL position and {@code pg_stat_statements}' calls. Two
 * readings around a drain of N messages give {@link MessageCost}. Linux only; a figure that cannot be read (a remote
 * server, no {@code pg_stat_statements}, an in-process broker) stays null.
 */
final class MessageCosts {

    /** Every counter at one moment; a null field could not be read. */
    record Reading(Long pgCpuNanos, long serviceCpuNanos, Long brokerCpuNanos, Long walBytes, Long statements,
            Long claims) {
    }

    /** {@code getconf CLK_TCK}: the unit of {@code /proc/<pid>/stat}'s times. */
    private static final long CLOCK_TICKS = clockTicks();

    private final BenchEnvironment env;
    private final ServiceProcess service;
    private final Long postmaster;
    private final Long broker;

    private MessageCosts(BenchEnvironment env, ServiceProcess service, Long postmaster, Long broker) {
        this.env = env;
        this.service = service;
        this.postmaster = postmaster;
        this.broker = broker;
    }

    /** The probes of {@code env}'s PostgreSQL and broker and of {@code service}; says which processes it found. */
    static MessageCosts of(BenchEnvironment env, ServiceProcess service) throws SQLException {
        Long postmaster = postmaster(env);
        Long broker = broker(env.kafka().bootstrapServers());
        System.out.printf(Locale.ROOT, "costs: PostgreSQL postmaster pid %s, service pid %d, broker pid %s%n",
                postmaster == null ? "not on this machine" : postmaster, service.pid(),
                broker == null ? "not a process of its own on this machine" : broker);
        return new MessageCosts(env, service, postmaster, broker);
    }

    Reading read() throws SQLException {
        Long statements = null;
        Long claims = null;
        try (Connection c = env.postgres().openConnection(); Statement s = c.createStatement()) {
            Long wal;
            try (ResultSet r = s.executeQuery("SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint")) {
                r.next();
                wal = r.getLong(1);
            }
            try (ResultSet r = s.executeQuery("""
                    SELECT coalesce(sum(calls), 0)::bigint,
                           coalesce(sum(calls) FILTER (WHERE query ILIKE '%skip locked%'), 0)::bigint
                      FROM pg_stat_statements""")) {
                r.next();
                statements = r.getLong(1);
                claims = r.getLong(2);
            } catch (SQLException e) {
                System.out.println("costs: no pg_stat_statements (" + e.getMessage().lines().findFirst().orElse("")
                        + "): statements not counted");
            }
            return new Reading(postmaster == null ? null : clusterCpuNanos(postmaster), service.cpu().toNanos(),
                    broker == null ? null : cpuNanos(broker, false), wal, statements, claims);
        }
    }

    /** What one of {@code n} messages cost between {@code before} and {@code after}. */
    static MessageCost perMessage(Reading before, Reading after, long n) {
        return new MessageCost(micros(before.pgCpuNanos(), after.pgCpuNanos(), n),
                micros(before.serviceCpuNanos(), after.serviceCpuNanos(), n),
                micros(before.brokerCpuNanos(), after.brokerCpuNanos(), n),
                per(before.walBytes(), after.walBytes(), n), per(before.statements(), after.statements(), n),
                per(before.claims(), after.claims(), n));
    }

    private static Double micros(Long before, Long after, long n) {
        Double nanos = per(before, after, n);
        return nanos == null ? null : Math.round(nanos / 1e3 * 100) / 100.0;
    }

    private static Double per(Long before, Long after, long n) {
        return before == null || after == null ? null : Math.round((after - before) * 100_000.0 / n) / 100_000.0;
    }

    /** The postmaster: the parent of this connection's backend, when the server runs on this machine. */
    private static Long postmaster(BenchEnvironment env) throws SQLException {
        try (Connection c = env.postgres().openConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT pg_backend_pid()")) {
            r.next();
            long backend = r.getLong(1);
            if (!List.of("127.0.0.1", "localhost").contains(env.postgres().host())) {
                return null;
            }
            List<String> stat = stat(backend);
            return stat == null ? null : Long.parseLong(stat.get(1));
        }
    }

    /** The process listening on the first bootstrap address's port, unless it is this JVM (an in-process broker). */
    private static Long broker(String bootstrap) {
        String first = bootstrap.split(",")[0];
        int port = Integer.parseInt(first.substring(first.lastIndexOf(':') + 1));
        Long pid = listener(port);
        return pid == null || pid == ProcessHandle.current().pid() ? null : pid;
    }

    /** CPU of {@code postmaster} and its children, with what its reaped children used. */
    private static long clusterCpuNanos(long postmaster) {
        long nanos = cpuNanos(postmaster, true);
        try (Stream<ProcessHandle> children = ProcessHandle.of(postmaster).stream().flatMap(ProcessHandle::children)) {
            for (ProcessHandle child : children.toList()) {
                nanos += cpuNanos(child.pid(), true);
            }
        }
        return nanos;
    }

    /** utime + stime (+ cutime + cstime when {@code reaped}) of {@code pid}; 0 once it is gone. */
    private static long cpuNanos(long pid, boolean reaped) {
        List<String> stat = stat(pid);
        if (stat == null) {
            return 0;
        }
        long ticks = Long.parseLong(stat.get(11)) + Long.parseLong(stat.get(12));
        if (reaped) {
            ticks += Long.parseLong(stat.get(13)) + Long.parseLong(stat.get(14));
        }
        return ticks * 1_000_000_000L / CLOCK_TICKS;
    }

    /** The fields of {@code /proc/<pid>/stat} after the command name (state first), or null when it is gone. */
    private static List<String> stat(long pid) {
        try {
            String line = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return List.of(line.substring(line.lastIndexOf(')') + 2).strip().split(" "));
        } catch (IOException e) {
            return null;
        }
    }

    /** The process with a socket listening on {@code port} ({@code /proc/net/tcp*}, then its fds), or null. */
    private static Long listener(int port) {
        String local = String.format(Locale.ROOT, ":%04X", port);
        Set<String> inodes = new HashSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try {
                for (String row : Files.readAllLines(Path.of(table))) {
                    String[] f = row.strip().split("\\s+");
                    if (f.length > 9 && f[1].endsWith(local) && f[3].equals("0A")) {
                        inodes.add("socket:[" + f[9] + "]");
                    }
                }
            } catch (IOException e) {
                return null;
            }
        }
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            for (Path process : processes.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try (Stream<Path> fds = Files.list(process.resolve("fd"))) {
                    for (Path fd : fds.toList()) {
                        if (inodes.contains(Files.readSymbolicLink(fd).toString())) {
                            return Long.parseLong(process.getFileName().toString());
                        }
                    }
                } catch (IOException e) {
                    // gone, or not ours to read
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    private static long clockTicks() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(getconf.getInputStream().readAllBytes()).strip();
            return getconf.waitFor() == 0 ? Long.parseLong(out) : 100;
        } catch (IOException | NumberFormatException e) {
            return 100; // Linux's USER_HZ
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
