package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.BenchLog;
import dev.dispatcher.load.bench.ServiceAccess;
import dev.dispatcher.load.bench.ServiceProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Starts the services of the black-box modes, each in its own JVM on the harness's servers, with the JVM options
 * of {@code -Ddispatcher.bench.service-jvm-options} (a mode's own default otherwise), a fresh operator token and
 * its output in {@code <log-dir>/<name>.log}.
 */
final class Services {

    private Services() {
    }

    /** {@code -Ddispatcher.bench.service-jvm-options}, or {@code fallback} (may be empty), split on spaces. */
    static List<String> jvmOptions(String fallback) {
        String options = System.getProperty("dispatcher.bench.service-jvm-options", fallback).strip();
        return options.isEmpty() ? List.of() : List.of(options.split("\\s+"));
    }

    /** The service on {@code schema} with {@code arguments} after the server ones. */
    static ServiceProcess start(BenchEnvironment env, ServiceProcess.Launch launch, List<String> jvmOptions,
            String schema, List<String> arguments, String name) throws Exception {
        List<String> all = new ArrayList<>(ServiceAccess.serverArguments(env.postgres(), env.kafka(), schema));
        all.addAll(arguments);
        ServiceProcess service = ServiceProcess.start(launch, jvmOptions, all, ServiceAccess.random(),
                BenchLog.serviceLog(name));
        System.out.printf(Locale.ROOT, "service: %s, pid %d, %s, log %s%n", launch.describe(jvmOptions),
                service.pid(), service.client().baseUrl(), service.log());
        return service;
    }

    /** The service jar, with the JVM options of {@code -Ddispatcher.bench.service-jvm-options} (none by default). */
    static ServiceProcess startJar(BenchEnvironment env, String schema, List<String> arguments, String name)
            throws Exception {
        return start(env, new ServiceProcess.Launch.Jar(ServiceProcess.defaultJar()), jvmOptions(""), schema,
                arguments, name);
    }
}
