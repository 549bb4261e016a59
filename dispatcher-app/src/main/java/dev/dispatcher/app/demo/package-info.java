/**
 * The built-in demo producer ({@code dispatcher.demo.*}): sample orders written to the outbox the way an
 * application writes them, with {@code dispatcher-client}'s writer.
 */
package dev.dispatcher.app.demo;
