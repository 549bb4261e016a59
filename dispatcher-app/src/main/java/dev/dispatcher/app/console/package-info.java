/**
 * The operator console at {@code /console}: static files served by the service and a filter chain that serves
 * them without credentials; the page itself calls {@code /v1} with the operator's credentials.
 */
package dev.dispatcher.app.console;
