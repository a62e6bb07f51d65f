package navicite.searchnode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;

/**
 * Starts one OpenSearch node of a loopback cluster in this JVM and keeps it running until the
 * process is told to stop (SIGTERM closes the node cleanly).
 *
 * <p>Arguments: {@code --index I --nodes N --http-port P --transport-port T --home DIR}. Node
 * {@code I} of {@code N} listens on HTTP port {@code P+I} and transport port {@code T+I}; with
 * {@code N > 1} the nodes find each other on the transport ports {@code T..T+N-1}. One process per
 * node, so a test can stop one node of a two-node cluster and watch the other carry on (node 0 is
 * the only cluster manager; stop another one).
 */
public final class SearchNode {

    private SearchNode() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = parse(args);
        int index = Integer.parseInt(opts.getOrDefault("index", "0"));
        int nodes = Integer.parseInt(opts.getOrDefault("nodes", "1"));
        int httpPort = Integer.parseInt(opts.getOrDefault("http-port", "9250"));
        int transportPort = Integer.parseInt(opts.getOrDefault("transport-port", "9350"));
        Path home = Path.of(opts.getOrDefault("home", "search-node-data")).toAbsolutePath().resolve("node-" + index);
        Files.createDirectories(home.resolve("config"));

        Settings.Builder settings = Settings.builder()
            .put("cluster.name", opts.getOrDefault("cluster", "navicite-search"))
            .put("node.name", "node-" + index)
            .put("path.home", home.toString())
            .put("path.data", home.resolve("data").toString())
            .put("path.logs", home.resolve("logs").toString())
            .put("network.host", "127.0.0.1")
            .put("http.port", httpPort + index)
            .put("transport.port", transportPort + index)
            .put("http.type", "netty4")
            .put("transport.type", "netty4")
            // A test machine's disk is often fuller than the production watermarks allow.
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .put("action.auto_create_index", false);
        if (nodes == 1) {
            settings.put("discovery.type", "single-node");
        } else {
            List<String> seeds = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                seeds.add("127.0.0.1:" + (transportPort + i));
            }
            settings.putList("discovery.seed_hosts", seeds);
            // Node 0 manages the cluster; the others hold data only. Two manager-eligible nodes
            // cannot lose one and keep a quorum, so this way any node but 0 may stop (a fail-over
            // test) and the cluster stays up, yellow, serving from the replicas.
            settings.putList("cluster.initial_cluster_manager_nodes", List.of("node-0"));
            if (index > 0) {
                settings.putList("node.roles", List.of("data", "ingest"));
            }
        }

        Environment environment = InternalSettingsPreparer.prepareEnvironment(
            settings.build(), Map.of(), home.resolve("config"), () -> "node-" + index);
        Node node = new Node(environment, plugins(), true) {};
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
            } catch (Exception e) {
                System.err.println("search-node: error while closing: " + e);
            }
            stopped.countDown();
        }));
        node.start();
        System.out.println("search-node: node-" + index + " started, http 127.0.0.1:" + (httpPort + index)
            + ", k-NN plugin " + (knnLoaded ? "loaded" : "absent"));
        stopped.await();
    }

    private static boolean knnLoaded;

    /** The modules navicite needs, plus the k-NN plugin when its jars are on the classpath. */
    @SuppressWarnings("unchecked")
    private static Collection<Class<? extends Plugin>> plugins() {
        List<Class<? extends Plugin>> plugins = new ArrayList<>(List.of(
            org.opensearch.transport.Netty4Plugin.class,
            org.opensearch.analysis.common.CommonAnalysisPlugin.class,
            org.opensearch.painless.PainlessPlugin.class));
        if (!"false".equals(System.getProperty("navicite.knn"))) {
            try {
                plugins.add((Class<? extends Plugin>) Class.forName("org.opensearch.knn.plugin.KNNPlugin"));
                knnLoaded = true;
            } catch (ClassNotFoundException e) {
                knnLoaded = false;
            }
        }
        return plugins;
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> opts = new java.util.HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
            }
            opts.put(args[i].substring(2), args[i + 1]);
        }
        return opts;
    }
}
