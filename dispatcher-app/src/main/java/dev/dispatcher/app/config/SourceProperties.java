package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyRules.MASK;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationPropertiesSource;

/**
 * One further database Dispatcher drains ({@code dispatcher.sources[i]}), beside the {@code default} source of
 * {@code spring.r2dbc.*}; validated by {@link DispatcherProperties}, which knows its index and the other names. The
 * password is masked in {@link #toString()}. Its connections take the pool settings and connection properties of
 * {@code spring.r2dbc.pool.*} and {@code spring.r2dbc.properties.*}; its migrations run with {@code spring.flyway.*}.
 *
 * @param name the source's name in HTTP paths ({@code /v1/sources/{name}/messages}), {@code ?source=} and the
 *     {@code source} tag of metrics: 1 to 63 lowercase letters, digits, '_' or '-', unique, not {@code default}
 * @param url its R2DBC URL, {@code r2dbc:postgresql://host:port/database}
 * @param username the database user, unless the URL names one
 * @param password the database user's password, unless the URL holds one
 * @param schema the schema of its tables; defaults to {@code dispatcher.schema}
 */
@ConfigurationPropertiesSource
public record SourceProperties(String name, String url, @Nullable String username, @Nullable String password,
        @Nullable String schema) {

    @Override
    public String toString() {
        return "SourceProperties[name=" + name + ", url=" + maskedUrl(url) + ", username=" + username + ", password="
                + (password == null ? null : MASK) + ", schema=" + schema + "]";
    }

    /** The URL without a password it may hold ({@code r2dbc:postgresql://user:secret@host/db}). */
    static @Nullable String maskedUrl(@Nullable String url) {
        return url == null ? null : url.replaceFirst("(://[^/@:]*:)[^/@]*@", "$1" + MASK + "@");
    }
}
