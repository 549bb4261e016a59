package dev.dispatcher.domain;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;

import org.junit.jupiter.api.Test;

/** Keeps the domain plain Java: it depends on the JDK and itself only, and its packages have no cycles. */
class DomainDependencyTest {

    private static final JavaClasses DOMAIN = new ClassFileImporter()
            .withImportOption(new ImportOption.DoNotIncludeTests())
            .importPackages("dev.dispatcher.domain");

    private static final ArchRule ONLY_JDK_AND_DOMAIN = classes()
            .that().resideInAPackage("dev.dispatcher.domain..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "dev.dispatcher.domain..")
            .because("the domain is plain Java: no Spring, Reactor, R2DBC or Kafka types, nor any other library");

    private static final ArchRule NO_FRAMEWORKS = noClasses()
            .that().resideInAPackage("dev.dispatcher.domain..")
            .should().dependOnClassesThat().resideInAnyPackage(
                    "org.springframework..", "reactor..", "io.r2dbc..", "org.apache.kafka..", "io.projectreactor..")
            .because("the domain must not depend on org.springframework.., reactor.., io.r2dbc.., org.apache.kafka.. "
                    + "or io.projectreactor..: its rules are shared by the stores, the relay and the tests");

    @Test
    void importsTheMainDomainClassesOnly() {
        assertThat(DOMAIN.contain(TransitionClassifier.class)).isTrue();
        assertThat(DOMAIN.contain(RetryPolicy.class)).isTrue();
        assertThat(DOMAIN.contain(DomainDependencyTest.class)).isFalse();
    }

    @Test
    void domainDependsOnlyOnTheJdkAndItself() {
        ONLY_JDK_AND_DOMAIN.check(DOMAIN);
    }

    @Test
    void domainDependsOnNoFrameworkOrDriver() {
        NO_FRAMEWORKS.check(DOMAIN);
    }

    @Test
    void domainPackagesAreFreeOfCycles() {
        slices().matching("dev.dispatcher.domain.(*)..").should().beFreeOfCycles().allowEmptyShould(true)
                .check(DOMAIN);
    }

    @Test
    void dependencyRuleReportsAClassThatUsesALibrary() {
        // The rule has teeth: a class in the domain package that touches a library (here AssertJ) is a violation.
        JavaClasses offender = new ClassFileImporter().importClasses(LibraryUser.class);

        assertThat(ONLY_JDK_AND_DOMAIN.evaluate(offender).hasViolation()).isTrue();
    }

    /** Test fixture: a domain-package class that depends on a third-party library. */
    static final class LibraryUser {
        Object use() {
            return assertThat(1);
        }
    }
}
