package dev.idempotency.framework.internal;

/** Whether an optional module is on the classpath, for classes that use it only when it is. */
final class Classes {

    private Classes() {
    }

    static boolean isPresent(String className) {
        try {
            Class.forName(className, false, Classes.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
