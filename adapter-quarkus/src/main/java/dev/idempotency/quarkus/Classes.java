package dev.idempotency.quarkus;

/** Whether an optional library is on the class path, asked before a class naming it is loaded. */
final class Classes {

    private Classes() {
    }

    static boolean present(String className) {
        try {
            Class.forName(className, false, Classes.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
