package dev.dispatcher.app;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import io.r2dbc.spi.Connection;
import org.junit.jupiter.api.Test;

/**
 * Fixes the service's package graph: only the store package binds SQL or touches the PostgreSQL driver's own
 * types, Kafka client types stay in the kafka package, ingest knows no HTTP and only the api package uses it,
 * nothing depends on the demo producer, and the packages form no cycle. Each rule is shown to report a violation,
 * so it cannot pass by accident.
 */
class ServicePackagesTest {

    private static final JavaClasses SERVICE = new ClassFileImporter()
            .withImportOption(new ImportOption.DoNotIncludeTests())
            .importPackages("dev.dispatcher.app");

    private static final ArchRule ONLY_STORE_BINDS_SQL = noClasses()
            .that().resideOutsideOfPackage("dev.dispatcher.app.store..")
            .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage("dev.dispatcher.sql..")
                    .and(JavaClass.Predicates.simpleNameEndingWith("Sql")))
            .orShould().dependOnClassesThat().haveFullyQualifiedName("io.r2dbc.spi.Statement")
            .orShould().dependOnClassesThat().haveFullyQualifiedName("io.r2dbc.spi.Result")
            .orShould().dependOnClassesThat().resideInAPackage("io.r2dbc.postgresql.api..")
            .because("every statement (the *Sql classes, LISTEN) is executed by the store package, which returns "
                    + "domain results; api, ingest, inbox, outbox and the kernel never bind SQL nor hold the "
                    + "driver's own connection (Migrations, which names where the migrations are, is not a "
                    + "statement)");

    private static final ArchRule KAFKA_TYPES_STAY_IN_KAFKA = noClasses()
            .that().resideOutsideOfPackage("dev.dispatcher.app.kafka..")
            .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..", "reactor.kafka..")
            .because("the kafka package's adapters are the only code that sees a Kafka client type");

    private static final ArchRule INGEST_KNOWS_NO_HTTP = noClasses()
            .that().resideInAPackage("dev.dispatcher.app.ingest..")
            .should().dependOnClassesThat().resideInAnyPackage("org.springframework.http.server..",
                    "org.springframework.web..", "org.springframework.security..", "dev.dispatcher.app.api..")
            .because("ingest takes a body and a grant and returns a result or a problem; the api package maps "
                    + "HTTP to it and back (a message's content type is a media type, HTTP's value type)");

    private static final ArchRule ONLY_API_USES_INGEST = noClasses()
            .that().resideOutsideOfPackages("dev.dispatcher.app.ingest..", "dev.dispatcher.app.api..")
            .should().dependOnClassesThat().resideInAPackage("dev.dispatcher.app.ingest..")
            .because("ingest is reached through HTTP only");

    private static final ArchRule NOTHING_USES_DEMO = noClasses()
            .that().resideOutsideOfPackage("dev.dispatcher.app.demo..")
            .should().dependOnClassesThat().resideInAPackage("dev.dispatcher.app.demo..")
            .because("the demo producer writes as an application does, and the service runs the same without it");

    private static final ArchRule NO_CYCLES = slices().matching("dev.dispatcher.app.(*)..").should().beFreeOfCycles();

    @Test
    void importsTheServiceClassesOnly() {
        assertThat(SERVICE.contain("dev.dispatcher.app.queue.ClaimLoop")).isTrue();
        assertThat(SERVICE.contain("dev.dispatcher.app.ingest.Ingest")).isTrue();
        assertThat(SERVICE.contain("dev.dispatcher.app.demo.DemoProducer")).isTrue();
        assertThat(SERVICE.contain(ServicePackagesTest.class)).isFalse();
    }

    @Test
    void onlyTheStorePackageBindsSql() {
        ONLY_STORE_BINDS_SQL.check(SERVICE);
    }

    @Test
    void kafkaClientTypesStayInTheKafkaPackage() {
        KAFKA_TYPES_STAY_IN_KAFKA.check(SERVICE);
    }

    @Test
    void ingestKnowsNoHttp() {
        INGEST_KNOWS_NO_HTTP.check(SERVICE);
    }

    @Test
    void onlyTheApiPackageUsesIngest() {
        ONLY_API_USES_INGEST.check(SERVICE);
    }

    @Test
    void nothingUsesTheDemoPackage() {
        NOTHING_USES_DEMO.check(SERVICE);
    }

    @Test
    void servicePackagesAreFreeOfCycles() {
        NO_CYCLES.check(SERVICE);
    }

    @Test
    void sqlRuleReportsAnInboxClassThatBindsAStatement() {
        JavaClasses offender = new ClassFileImporter().importClasses(dev.dispatcher.app.inbox.SqlBindingOffender.class);

        assertThat(ONLY_STORE_BINDS_SQL.evaluate(offender).hasViolation()).isTrue();
    }

    @Test
    void sqlRuleReportsAnOutboxClassThatListensOnThePostgresDriversConnection() {
        JavaClasses offender = new ClassFileImporter().importClasses(dev.dispatcher.app.outbox.ListenOffender.class);

        assertThat(ONLY_STORE_BINDS_SQL.evaluate(offender).hasViolation()).isTrue();
    }

    @Test
    void httpRuleReportsAnIngestClassThatReadsAnHttpRequest() {
        JavaClasses offender = new ClassFileImporter().importClasses(dev.dispatcher.app.ingest.HttpTypeOffender.class);

        assertThat(INGEST_KNOWS_NO_HTTP.evaluate(offender).hasViolation()).isTrue();
    }

    @Test
    void ingestAndDemoRulesReportAnOutboxClassThatUsesThem() {
        JavaClasses offender =
                new ClassFileImporter().importClasses(dev.dispatcher.app.outbox.PackageUseOffender.class);

        assertThat(ONLY_API_USES_INGEST.evaluate(offender).hasViolation()).isTrue();
        assertThat(NOTHING_USES_DEMO.evaluate(offender).hasViolation()).isTrue();
    }

    @Test
    void kafkaRuleReportsAnOutboxClassThatHoldsAKafkaType() {
        JavaClasses offender = new ClassFileImporter().importClasses(dev.dispatcher.app.outbox.KafkaTypeOffender.class);

        assertThat(KAFKA_TYPES_STAY_IN_KAFKA.evaluate(offender).hasViolation()).isTrue();
    }

    @Test
    void cycleRuleReportsTwoPackagesThatUseEachOther() {
        JavaClasses offenders = new ClassFileImporter().importClasses(
                dev.dispatcher.app.inbox.SqlBindingOffender.class, dev.dispatcher.app.outbox.KafkaTypeOffender.class);

        assertThat(NO_CYCLES.evaluate(offenders).hasViolation()).isTrue();
    }

    /** Keeps the import of {@link Connection} used: a connection alone (a handler's transaction) is allowed. */
    static Class<?> allowed() {
        return Connection.class;
    }
}
