package dev.dispatcher.app.demo;

/** Test fixture for ServicePackagesTest: a class of the demo package that others may use. */
public final class DemoFixture {
}
