// serve_tree XML PORT: one tree of BehaviorTree.CPP 4.10, served by its own Groot2Publisher on
// PORT (and PORT+1), ticked on the commands read from stdin, one a line:
//   tick  -> tickExactlyOnce(); prints "status NAME" when it returns
//   halt  -> haltTree(); prints "halted"
//   quit  -> ends (the publisher is destroyed first)
// It prints "ready" once the publisher is bound. record.py drives it.
#include <behaviortree_cpp/bt_factory.h>
#include <behaviortree_cpp/loggers/groot2_publisher.h>

#include <iostream>
#include <string>

int main(int argc, char** argv)
{
  if(argc != 3)
  {
    std::cerr << "usage: serve_tree XML PORT" << std::endl;
    return 2;
  }
  BT::BehaviorTreeFactory factory;
  auto tree = factory.createTreeFromFile(argv[1]);
  const unsigned port = static_cast<unsigned>(std::stoul(argv[2]));
  {
    BT::Groot2Publisher publisher(tree, port);
    std::cout << "ready" << std::endl;
    std::string line;
    while(std::getline(std::cin, line))
    {
      if(line == "tick")
      {
        const auto status = tree.tickExactlyOnce();
        std::cout << "status " << BT::toStr(status) << std::endl;
      }
      else if(line == "halt")
      {
        tree.haltTree();
        std::cout << "halted" << std::endl;
      }
      else if(line == "quit")
      {
        break;
      }
    }
  }
  return 0;
}
