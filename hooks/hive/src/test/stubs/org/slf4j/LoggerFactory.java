// Compile-only declaration of SLF4J 1.7's LoggerFactory.getLogger(Class).
// Not SLF4J's code: this one writes "WARN <logger>: <message>" to stderr,
// each "{}" replaced by the next argument, so the test can read the log.
package org.slf4j;

public final class LoggerFactory {
    private LoggerFactory() {
    }

    public static Logger getLogger(final Class<?> clazz) {
        return new Logger() {
            @Override
            public void warn(String format, Object... arguments) {
                StringBuilder b = new StringBuilder("WARN ").append(clazz.getName()).append(": ");
                int from = 0;
                int arg = 0;
                for (int at; (at = format.indexOf("{}", from)) >= 0 && arg < arguments.length; from = at + 2) {
                    b.append(format, from, at).append(arguments[arg++]);
                }
                b.append(format.substring(from));
                System.err.println(b);
            }
        };
    }
}
