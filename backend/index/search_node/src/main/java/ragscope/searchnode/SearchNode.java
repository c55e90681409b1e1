package ragscope.searchnode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.opensearch.Version;
import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4Plugin;

/**
 * An OpenSearch node assembled from Maven Central jars: the server plus two plugins loaded
 * from the classpath (netty4 for the HTTP/transport ports, analysis-common for the stemmers
 * ragscope's mapping uses). A distribution would load them from a plugins folder; the
 * protected {@link Node} constructor takes plugin classes instead, as OpenSearch's own
 * test framework (MockNode) does.
 *
 * <p>Arguments: {@code key=value} node settings (path.home is required). The node runs until
 * the JVM is told to stop (SIGTERM/SIGINT); the shutdown hook closes it, so the data folder
 * is left clean. One line "ragscope-search-node started opensearch VERSION" goes to stdout
 * once the node has started (the Python side then waits for cluster health).
 */
public final class SearchNode extends Node {

    static final List<Class<? extends Plugin>> PLUGINS = List.of(Netty4Plugin.class, CommonAnalysisPlugin.class);

    SearchNode(Settings settings, Collection<Class<? extends Plugin>> plugins) {
        super(InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> "ragscope-search-node"),
              plugins, true);
    }

    static Settings parse(String[] args) {
        Settings.Builder b = Settings.builder();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value, got " + arg);
            }
            b.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return b.build();
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--version")) {
            System.out.println("opensearch " + Version.CURRENT);
            return;
        }
        Settings settings = parse(args);
        if (Environment.PATH_HOME_SETTING.get(settings).isEmpty()) {
            throw new IllegalArgumentException("path.home=... is required");
        }
        Files.createDirectories(Path.of(Environment.PATH_HOME_SETTING.get(settings), "config"));
        SearchNode node = new SearchNode(settings, PLUGINS);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
                node.awaitClose(20, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                stopped.countDown();
            }
        }, "ragscope-search-node-shutdown"));
        node.start();
        System.out.println("ragscope-search-node started opensearch " + Version.CURRENT);
        System.out.flush();
        stopped.await();
    }
}
